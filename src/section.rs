//! The sections of a summary and its root element (SPEC X4.17, C13.4, `LC_SECTION_*`): named by
//! the grammar's diagnosis, by every [`crate::diagnostic::Diagnostic`] and by the C ABI, so they
//! stand below all three. Public as [`crate::summary::Section`].

use core::ffi::CStr;

/// A section of the summary, or its root element (`LC_SECTION_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Section {
    /// `goal` (`LC_SECTION_GOAL`, 1).
    Goal = 1,
    /// `constraints` (2).
    Constraints = 2,
    /// `decisions` (3).
    Decisions = 3,
    /// `state` (4).
    State = 4,
    /// `open_items` (5).
    OpenItems = 5,
    /// The root element `conversation_summary` itself, outside any section (6).
    Root = 6,
}

impl Section {
    /// The five sections in their required order (X4.17).
    pub const ALL: [Section; 5] =
        [Section::Goal, Section::Constraints, Section::Decisions, Section::State, Section::OpenItems];

    /// The C ABI value (`LC_SECTION_*`).
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The section of a C ABI value; `None` for `LC_SECTION_NONE` (0) and unknown values.
    #[must_use]
    pub const fn from_code(code: i32) -> Option<Section> {
        match code {
            1 => Some(Section::Goal),
            2 => Some(Section::Constraints),
            3 => Some(Section::Decisions),
            4 => Some(Section::State),
            5 => Some(Section::OpenItems),
            6 => Some(Section::Root),
            _ => None,
        }
    }

    /// The element name: `"goal"`, ..., `"open_items"`, `"conversation_summary"` for the root.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Section::Goal => "goal",
            Section::Constraints => "constraints",
            Section::Decisions => "decisions",
            Section::State => "state",
            Section::OpenItems => "open_items",
            Section::Root => "conversation_summary",
        }
    }

    /// The start tag: `"<goal>"`, ..., `"<conversation_summary>"`.
    #[must_use]
    pub fn start_tag(self) -> &'static str {
        self.start_tag_c().to_str().unwrap_or_default()
    }

    /// The end tag: `"</goal>"`, ..., `"</conversation_summary>"`.
    #[must_use]
    pub fn end_tag(self) -> &'static str {
        self.end_tag_c().to_str().unwrap_or_default()
    }

    pub(crate) const fn start_tag_c(self) -> &'static CStr {
        match self {
            Section::Goal => c"<goal>",
            Section::Constraints => c"<constraints>",
            Section::Decisions => c"<decisions>",
            Section::State => c"<state>",
            Section::OpenItems => c"<open_items>",
            Section::Root => c"<conversation_summary>",
        }
    }

    pub(crate) const fn end_tag_c(self) -> &'static CStr {
        match self {
            Section::Goal => c"</goal>",
            Section::Constraints => c"</constraints>",
            Section::Decisions => c"</decisions>",
            Section::State => c"</state>",
            Section::OpenItems => c"</open_items>",
            Section::Root => c"</conversation_summary>",
        }
    }

    /// Index into the five sections (`None` for the root).
    pub(crate) const fn index(self) -> Option<usize> {
        match self {
            Section::Root => None,
            s => Some(s as usize - 1),
        }
    }

    /// The section at index `k` of the five (`None` past them).
    pub(crate) fn at(k: usize) -> Option<Section> {
        Section::ALL.get(k).copied()
    }
}
