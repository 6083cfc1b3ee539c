//! What the diagnostics tests share: the constants of docs/SPEC.md §13 written out from the spec
//! text, the table [`Case`] with what each field must be, the checker that reports every failing
//! row at once, and an independent reading of C13.2's line and column.

use testkit::diagnostic::Diag;
pub use testkit::diagnostic::{self as kit, DIAG_SIZE, DiagBuf, UNTOUCHED};
pub use testkit::status::{self, spec_class};

// C13.2, C13.3, C13.4, C13.9, copied from the spec text (not taken from the library's constants).
pub const OFFSET_UNKNOWN: u64 = u64::MAX;
pub const LIMIT_UNKNOWN: u64 = u64::MAX;
pub const LOCATION_CAP: usize = 128;
pub const CLASS_OK: i32 = 0;
pub const CLASS_RETRY: i32 = 1;
pub const CLASS_DISCARD: i32 = 2;
pub const CLASS_HOST: i32 = 3;
pub const NONE: i32 = 0;
pub const GOAL: i32 = 1;
pub const CONSTRAINTS: i32 = 2;
pub const DECISIONS: i32 = 3;
pub const STATE: i32 = 4;
pub const OPEN_ITEMS: i32 = 5;
pub const ROOT: i32 = 6;
pub const INVALID_ARGUMENT: i32 = 4;

/// The five section names of X4.17, in order.
pub const SECTION_NAMES: [&str; 5] = ["goal", "constraints", "decisions", "state", "open_items"];

/// C13.2, read independently of the library: the 1-based line (lines end at LF) and column (Unicode
/// scalar values from the line's start: bytes that are not UTF-8 continuation bytes) of `offset`.
pub fn line_column(text: &[u8], offset: usize) -> (u64, u64) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |nl| nl + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count() as u64;
    let column = 1 + before[line_start..].iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
    (line, column)
}

/// Where the offset must be.
#[derive(Debug, Clone, Copy)]
pub enum Off {
    /// Exactly this byte (with this line and column).
    At(usize, u64, u64),
    /// `LC_OFFSET_UNKNOWN` (line and column 0).
    Unknown,
    /// Known or not: the spec does not say; if known, within `[start, end)` of the checked text.
    Within(usize, usize),
    /// Known or not, anywhere (only line/column consistency is checked).
    Any,
}

impl Off {
    /// An exact offset `n` bytes further on the same line of ASCII.
    pub fn shifted(self, n: usize) -> Off {
        match self {
            Off::At(at, line, column) => Off::At(at + n, line, column + n as u64),
            other => other,
        }
    }
}

/// What a string field must be.
#[derive(Debug, Clone, Copy)]
pub enum Text {
    Is(&'static str),
    /// One of these (the spec names more than one rule for the case).
    OneOf(&'static [&'static str]),
    /// Not empty (the spec says there is an expectation but not its wording).
    NonEmpty,
    /// A path that did not fit: starts with this, ends in `...`, at most `LOCATION_CAP - 1` bytes.
    Truncated(&'static str),
    /// The spec does not say.
    Any,
}

impl Text {
    fn check(self, got: &str) -> bool {
        match self {
            Text::Is(want) => got == want,
            Text::OneOf(set) => set.contains(&got),
            Text::NonEmpty => !got.is_empty(),
            Text::Truncated(prefix) => got.starts_with(prefix) && got.ends_with("...") && got.len() < LOCATION_CAP,
            Text::Any => true,
        }
    }
}

/// One row of a table: the status and every field of the diagnosis, as derived by hand from
/// docs/SPEC.md §4–§13 and the input.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: &'static str,
    /// The bytes whose offsets the diagnosis counts (the decoded summary for a summary inside a
    /// reply, else the input itself).
    pub text: Vec<u8>,
    pub status: i32,
    pub offset: Off,
    /// `None`: `LC_SECTION_*` is not said by the spec for this case.
    pub section: Option<i32>,
    pub rule: Text,
    pub expected: Text,
    pub location: Text,
    /// `(limit, actual)`, or `None` for `LC_LIMIT_UNKNOWN`.
    pub limits: Option<(u64, u64)>,
    /// The class when the diagnosis knows better than the status (R15.2), else the status's.
    pub class: Option<i32>,
}

impl Case {
    /// A row with the strict defaults: no section, no expectation, empty location, no limits.
    pub fn new(name: &'static str, text: impl Into<Vec<u8>>, status: i32, offset: Off) -> Case {
        Case {
            name,
            text: text.into(),
            status,
            offset,
            section: Some(NONE),
            rule: Text::Any,
            expected: Text::Is(""),
            location: Text::Is(""),
            limits: None,
            class: None,
        }
    }

    /// R15.2: a byte limit no reply can meet is the host's.
    pub fn class(mut self, class: i32) -> Case {
        self.class = Some(class);
        self
    }

    pub fn section(mut self, section: i32) -> Case {
        self.section = Some(section);
        self
    }

    pub fn any_section(mut self) -> Case {
        self.section = None;
        self
    }

    pub fn rule(mut self, rule: &'static str) -> Case {
        self.rule = Text::Is(rule);
        self
    }

    pub fn rules(mut self, rules: &'static [&'static str]) -> Case {
        self.rule = Text::OneOf(rules);
        self
    }

    pub fn expected(mut self, expected: Text) -> Case {
        self.expected = expected;
        self
    }

    pub fn expects(self, expected: &'static str) -> Case {
        self.expected(Text::Is(expected))
    }

    pub fn location(mut self, location: Text) -> Case {
        self.location = location;
        self
    }

    pub fn at(self, location: &'static str) -> Case {
        self.location(Text::Is(location))
    }

    pub fn limits(mut self, limit: u64, actual: u64) -> Case {
        self.limits = Some((limit, actual));
        self
    }

    /// Whether the row is a failure of the summary grammar (its rule is an X4 rule).
    pub fn rule_is_grammar(&self) -> bool {
        match self.rule {
            Text::Is(rule) => rule.starts_with("X4."),
            _ => false,
        }
    }

    /// Every field of `diag` against the row; `rc` is what the function returned. `None` when
    /// everything matches, else what differs.
    pub fn mismatches(&self, rc: i32, diag: &Diag) -> Option<String> {
        let mut wrong = Vec::new();
        if rc != self.status {
            wrong.push(format!(
                "status {} ({}), want {} ({})",
                rc,
                status::name(rc),
                self.status,
                status::name(self.status)
            ));
        }
        let class = self.class.unwrap_or(spec_class(self.status));
        if diag.status_class != class {
            wrong.push(format!("class {}, want {class}", diag.status_class));
        }
        match (self.offset, diag.offset()) {
            (Off::At(at, line, column), Some(got)) => {
                if (got, diag.line, diag.column) != (at as u64, line, column) {
                    wrong.push(format!(
                        "offset/line/column {got}/{}/{}, want {at}/{line}/{column}",
                        diag.line, diag.column
                    ));
                }
                let own = line_column(&self.text, at);
                assert_eq!(own, (line, column), "{}: the table's line/column do not fit its own offset", self.name);
            }
            (Off::At(at, ..), None) => wrong.push(format!("offset unknown, want {at}")),
            (Off::Unknown, Some(got)) => wrong.push(format!("offset {got}, want unknown")),
            (Off::Unknown, None) | (Off::Any | Off::Within(..), None) => {}
            (Off::Within(start, end), Some(got)) if !(start as u64..end as u64).contains(&got) => {
                wrong.push(format!("offset {got}, want within {start}..{end}"));
            }
            (Off::Within(..) | Off::Any, Some(_)) => {}
        }
        if let Some(got) = diag.offset() {
            let want = line_column(&self.text, got as usize);
            if (diag.line, diag.column) != want {
                wrong.push(format!("line/column {}/{} for offset {got}, C13.2 gives {want:?}", diag.line, diag.column));
            }
        }
        if let Some(section) = self.section
            && diag.section != section
        {
            wrong.push(format!("section {}, want {section}", diag.section));
        }
        for (what, want, got) in [
            ("rule", self.rule, &diag.rule),
            ("expected", self.expected, &diag.expected),
            ("location", self.location, &diag.location),
        ] {
            if !want.check(got) {
                wrong.push(format!("{what} {got:?}, want {want:?}"));
            }
        }
        if diag.limits() != self.limits {
            wrong.push(format!("limit/actual {:?}, want {:?}", diag.limits(), self.limits));
        }
        (!wrong.is_empty()).then(|| format!("{}: {}", self.name, wrong.join("; ")))
    }
}

/// Runs every row through `call` (the function's checked `_diagnose` wrapper) and reports every
/// failing row at once.
pub fn run(cases: &[Case], call: impl Fn(&Case) -> (i32, Diag)) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let (rc, diag) = call(case);
            case.mismatches(rc, &diag)
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} rows fail:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// The offset of the first occurrence of `marker` in `text` (a table's offsets are found in the
/// input the row wrote, never taken from a run).
#[track_caller]
pub fn find(text: impl AsRef<[u8]>, marker: impl AsRef<[u8]>) -> usize {
    let (text, marker) = (text.as_ref(), marker.as_ref());
    text.windows(marker.len())
        .position(|w| w == marker)
        .unwrap_or_else(|| panic!("marker {:?} not in the input", String::from_utf8_lossy(marker)))
}

/// The offset of the last occurrence of `marker` in `text`.
#[track_caller]
pub fn rfind(text: impl AsRef<[u8]>, marker: impl AsRef<[u8]>) -> usize {
    let (text, marker) = (text.as_ref(), marker.as_ref());
    text.windows(marker.len())
        .rposition(|w| w == marker)
        .unwrap_or_else(|| panic!("marker {:?} not in the input", String::from_utf8_lossy(marker)))
}

/// `text` with `from` replaced by `to`, exactly once (the edit must be unambiguous).
#[track_caller]
pub fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "edit {from:?}: not exactly once in the template");
    text.replacen(from, to, 1)
}

/// A JSON string holding `text`, escaped as Go's `json.Marshal` does (`<`, `>`, `&` as `\u00XX`),
/// so that offsets in the reply and in the decoded text differ.
pub fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 || !c.is_ascii() => {
                for unit in c.encode_utf16(&mut [0; 2]) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
