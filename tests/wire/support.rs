//! What every module of the wire tests shares: the status values and sample values they use, one
//! small valid template (already in canonical form) and builders that splice a transcript, a
//! message or a block into it, so that a case differs from a valid document only where it says,
//! and [`Cases`], which collects every failing case of a test so that one run reports all of them.

pub use testkit::abi::Input;
pub use testkit::spec::{EVENT_ID as UUID, REQUEST_FINGERPRINT as FP, STUB};
pub use testkit::status::{
    self, LC_ERR_BUFFER_TOO_SMALL as BUFFER_TOO_SMALL, LC_ERR_LENGTH_OVERFLOW as LENGTH_OVERFLOW,
    LC_ERR_NULL_ARGUMENT as NULL_ARGUMENT, LC_INPUT_BASIS as BASIS, LC_INPUT_MAX_SUMMARY_TOKENS as MAX_TOKENS,
    LC_INPUT_MODEL as MODEL, LC_INPUT_REQUEST_FINGERPRINT as FINGERPRINT, LC_INPUT_TOO_LARGE as TOO_LARGE,
    LC_INPUT_TRANSCRIPT as TRANSCRIPT, LC_INPUT_WIRE as WIRE, LC_OK as OK, LC_SUMMARY_BYTE_LIMIT as BYTE_LIMIT,
    LC_SUMMARY_IDENTITY as IDENTITY, LC_SUMMARY_TOKEN_LIMIT as TOKEN_LIMIT, LC_SUMMARY_TOKEN_USAGE as TOKEN_USAGE,
    LC_SUMMARY_WIRE as S_WIRE, LC_SUMMARY_XML_CONTENT as XML_CONTENT, LC_SUMMARY_XML_ROOT as XML_ROOT,
    LC_SUMMARY_XML_STRUCTURE as XML_STRUCTURE, LC_SUMMARY_XML_SYNTAX as XML_SYNTAX,
};

pub const FP_ZERO: &str = "0000000000000000000000000000000000000000000000000000000000000000";
pub const UUID_ZERO: &str = "00000000-0000-0000-0000-000000000000";
pub const HELLO: &str = r#"{"role":"user","blocks":[{"type":"text","text":"hello"}]}"#;
/// A transcript that fails §5.3 (unknown role) and nothing else.
pub const BAD_TRANSCRIPT: &str = r#"[{"role":"bot","blocks":[]}]"#;
/// A summary that §4 accepts.
pub const SUMMARY: &str = "<conversation_summary><goal>ship &amp; verify</goal><constraints/><decisions></decisions><state>ready</state><open_items/></conversation_summary>";

// ---------------------------------------------------------------------------------------------
// Builders

/// `{"k":v,...}` from raw key bodies and raw JSON values.
pub fn obj(pairs: &[(&str, &str)]) -> String {
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}

/// A JSON string from its body (escapes as written).
pub fn s(body: &str) -> String {
    format!("\"{body}\"")
}

pub fn basis(revision: &str, event_id: &str) -> String {
    obj(&[("revision", revision), ("through_event_id", event_id)])
}

pub fn model(provider: &str, model: &str) -> String {
    obj(&[("provider", provider), ("model", model)])
}

/// The canonical template (E7.2) around a raw transcript value, with raw provider and model values.
pub fn doc_with(provider: &str, model_name: &str, transcript: &str) -> Vec<u8> {
    obj(&[
        ("version", "1"),
        ("basis", &basis("3", &s(UUID))),
        ("model", &model(provider, model_name)),
        ("request_fingerprint", &s(FP)),
        ("transcript", transcript),
        ("max_summary_tokens", "32"),
    ])
    .into_bytes()
}

/// The template around a raw transcript value.
pub fn doc(transcript: &str) -> Vec<u8> {
    doc_with("\"provider\"", "\"model\"", transcript)
}

/// The template with one message.
pub fn msg_doc(message: &str) -> Vec<u8> {
    doc(&format!("[{message}]"))
}

/// The template with one user message holding one block.
pub fn block_doc(block: &str) -> Vec<u8> {
    msg_doc(&format!(r#"{{"role":"user","blocks":[{block}]}}"#))
}

/// A top-level object built field by field (raw key bodies, raw values), for the W5.2 and O6.2 order.
#[derive(Clone)]
pub struct Top(pub Vec<(String, String)>);

impl Top {
    pub fn input() -> Top {
        Top(vec![
            ("version".into(), "1".into()),
            ("basis".into(), basis("3", &s(UUID))),
            ("model".into(), model("\"provider\"", "\"model\"")),
            ("request_fingerprint".into(), s(FP)),
            ("transcript".into(), format!("[{HELLO}]")),
            ("max_summary_tokens".into(), "32".into()),
        ])
    }

    pub fn output() -> Top {
        Top(vec![
            ("version".into(), "1".into()),
            ("basis".into(), basis("3", &s(UUID))),
            ("model".into(), model("\"provider\"", "\"model\"")),
            ("request_fingerprint".into(), s(FP)),
            ("summary".into(), s(SUMMARY)),
        ])
    }

    /// Replaces the value of `key` (appends it when absent).
    pub fn set(mut self, key: &str, value: &str) -> Top {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value.to_owned(),
            None => self.0.push((key.to_owned(), value.to_owned())),
        }
        self
    }

    pub fn without(mut self, key: &str) -> Top {
        self.0.retain(|(k, _)| k != key);
        self
    }

    /// Appends a key even if it is already there (duplicates).
    pub fn push(mut self, key: &str, value: &str) -> Top {
        self.0.push((key.to_owned(), value.to_owned()));
        self
    }

    pub fn bytes(&self) -> Vec<u8> {
        let pairs: Vec<(&str, &str)> = self.0.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        obj(&pairs).into_bytes()
    }
}

/// The template with one `tool_use` block whose `input` is the raw JSON value `input`.
pub fn tool_use_with_input(input: &str) -> Vec<u8> {
    block_doc(&format!(r#"{{"type":"tool_use","id":"i","name":"n","input":{input}}}"#))
}

/// A tool message with one text block (a fitting candidate of F7.3).
pub fn tool_msg(id: &str, text: &str) -> String {
    format!(r#"{{"role":"tool","blocks":[{{"type":"text","text":"{text}"}}],"tool_use_id":"{id}","is_error":false}}"#)
}

/// `bytes` with the first occurrence of `from` replaced by `to` (for invalid UTF-8 and syntax errors).
pub fn splice(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = bytes.windows(from.len()).position(|w| w == from).expect("splice: pattern not found");
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(to);
    out.extend_from_slice(&bytes[at + from.len()..]);
    out
}

/// Bytes for messages: lossy, elided in the middle when long.
pub fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.chars().count() <= 400 {
        return text.into_owned();
    }
    let head: String = text.chars().take(200).collect();
    let tail: String = text.chars().rev().take(150).collect::<Vec<_>>().into_iter().rev().collect();
    format!("{head} …({} bytes)… {tail}", bytes.len())
}

// ---------------------------------------------------------------------------------------------
// C ABI helpers

/// `_validate` and `_parse` of the same bytes; they must agree (the wrapper checks that a handle
/// exists iff `LC_OK`).
pub fn input_status(wire: &[u8]) -> Result<i32, String> {
    let v = testkit::abi::input_validate(wire);
    let p = Input::parse(wire).err().unwrap_or(OK);
    if v != p {
        return Err(format!("validate {} but parse {}", status::name(v), status::name(p)));
    }
    Ok(v)
}

#[track_caller]
pub fn parse(wire: &[u8]) -> Input {
    Input::parse(wire).unwrap_or_else(|rc| panic!("parse gave {} for {}", status::name(rc), show(wire)))
}

/// Collects every failing case of a test, so that one run reports all of them.
#[derive(Default)]
pub struct Cases {
    failures: Vec<String>,
    count: usize,
}

impl Cases {
    pub fn input(&mut self, name: impl AsRef<str>, wire: &[u8], expect: i32) {
        self.count += 1;
        match input_status(wire) {
            Ok(got) if got == expect => {}
            Ok(got) => self.failures.push(format!(
                "{}: got {} expected {}\n    input: {}",
                name.as_ref(),
                status::name(got),
                status::name(expect),
                show(wire)
            )),
            Err(e) => self.failures.push(format!("{}: {e}\n    input: {}", name.as_ref(), show(wire))),
        }
    }

    /// Output validation of `reply` against the template input (max_summary_tokens 32).
    pub fn output(&mut self, name: impl AsRef<str>, reply: &[u8], tokens: u64, max_bytes: u64, expect: i32) {
        let h = parse(&doc(&format!("[{HELLO}]")));
        self.output_with(name, &h, reply, tokens, max_bytes, expect);
    }

    pub fn output_with(&mut self, name: impl AsRef<str>, h: &Input, reply: &[u8], tokens: u64, max: u64, expect: i32) {
        self.count += 1;
        let got = match h.output(reply, tokens, max) {
            Ok(_) => OK,
            Err(rc) => rc,
        };
        if got != expect {
            self.failures.push(format!(
                "{}: got {} expected {}\n    reply: {} (tokens {tokens}, max_output_bytes {max})",
                name.as_ref(),
                status::name(got),
                status::name(expect),
                show(reply)
            ));
        }
    }

    pub fn bytes(&mut self, name: impl AsRef<str>, got: Result<Vec<u8>, i32>, want: &[u8]) {
        self.count += 1;
        match got {
            Ok(bytes) if bytes == want => {}
            Ok(bytes) => self.failures.push(format!(
                "{}: bytes differ\n    got  {}\n    want {}",
                name.as_ref(),
                show(&bytes),
                show(want)
            )),
            Err(rc) => {
                self.failures.push(format!("{}: got {} expected bytes {}", name.as_ref(), status::name(rc), show(want)))
            }
        }
    }

    pub fn status(&mut self, name: impl AsRef<str>, got: i32, expect: i32) {
        self.count += 1;
        if got != expect {
            self.failures.push(format!(
                "{}: got {} expected {}",
                name.as_ref(),
                status::name(got),
                status::name(expect)
            ));
        }
    }

    pub fn truth(&mut self, name: impl AsRef<str>, ok: bool) {
        self.count += 1;
        if !ok {
            self.failures.push(format!("{}: does not hold", name.as_ref()));
        }
    }

    #[track_caller]
    pub fn finish(self) {
        eprintln!("{} cases", self.count);
        assert!(
            self.failures.is_empty(),
            "{} of {} cases failed:\n{}",
            self.failures.len(),
            self.count,
            self.failures.join("\n")
        );
    }
}
