//! The status table (SPEC §3): every code's value, name, reason string, message and class (§13).
//!
//! The rows live in `status_table.rs`; the `Status` enum, the C constants in the header and the
//! `lc_status_*` lookups are all derived from it, so a code cannot exist in one place and not the
//! other (A3.3).

macro_rules! status_table {
    ($(($value:literal, $variant:ident, $cname:ident, $reason:literal, $message:literal, $class:ident)),* $(,)?) => {
        /// A status of the C ABI (SPEC §3). `Ok` is success; every other value is a reason code.
        ///
        /// The discriminant is the stable `lc_status` value.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(i32)]
        #[non_exhaustive]
        pub enum Status {
            $(
                #[doc = concat!("`", stringify!($cname), "` (", stringify!($value), "): ", $message)]
                $variant = $value,
            )*
        }

        impl Status {
            /// Every status, in ascending order of value.
            pub const ALL: &'static [Status] = &[$(Status::$variant),*];

            /// The status with this value, or `None` for a value not in the table.
            #[must_use]
            pub const fn from_code(code: i32) -> Option<Status> {
                match code {
                    $($value => Some(Status::$variant),)*
                    _ => None,
                }
            }

            /// The C constant's name, e.g. `"LC_SUMMARY_XML_SYNTAX"`.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $(Status::$variant => stringify!($cname),)*
                }
            }

            /// The reference's reason string, e.g. `"xml_syntax"`; `""` for `Ok` and boundary errors.
            #[must_use]
            pub const fn reason(self) -> &'static str {
                match self {
                    $(Status::$variant => $reason,)*
                }
            }

            /// One human sentence describing the status. Never contains input bytes.
            #[must_use]
            pub const fn message(self) -> &'static str {
                match self {
                    $(Status::$variant => $message,)*
                }
            }

            /// What a host does next about this status (SPEC §13, C13.2).
            #[must_use]
            pub const fn class(self) -> StatusClass {
                match self {
                    $(Status::$variant => StatusClass::$class,)*
                }
            }

            /// NUL-terminated forms of name, reason and message, for the C ABI.
            pub(crate) const fn c_strings(self) -> (&'static core::ffi::CStr, &'static core::ffi::CStr, &'static core::ffi::CStr) {
                match self {
                    $(Status::$variant => (
                        const { c_str(concat!(stringify!($cname), "\0")) },
                        const { c_str(concat!($reason, "\0")) },
                        const { c_str(concat!($message, "\0")) },
                    ),)*
                }
            }
        }
    };
}

include!("status_table.rs");

/// What a host does next about a status (SPEC §13, C13.2); the discriminant is the C ABI's
/// `LC_CLASS_*` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum StatusClass {
    /// `LC_OK`: nothing to do.
    Ok = 0,
    /// A new attempt by the summariser can fix it: the summary's grammar or content, its byte or
    /// token limit. Send the retry message ([`crate::diagnostic::retry_message`]) with the next try.
    Retry = 1,
    /// This result can never be used, and retrying the same request will not help: the reply
    /// belongs to another request, lacks usage, or makes the request too large.
    Discard = 2,
    /// The host's own document, policy or call is wrong: fix the host, not the summary.
    Host = 3,
    /// A bug in the library (`LC_ERR_PANIC`): report it.
    Bug = 4,
}

impl StatusClass {
    /// The C ABI value (`LC_CLASS_*`).
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The class of a status value: the table's, and [`StatusClass::Host`] for a value not in it
    /// (a code this library never returns came from the host's side of the call).
    #[must_use]
    pub const fn of_code(code: i32) -> StatusClass {
        match Status::from_code(code) {
            Some(status) => status.class(),
            None => StatusClass::Host,
        }
    }

    /// The lower-case name: `"ok"`, `"retry"`, `"discard"`, `"host"`, `"bug"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            StatusClass::Ok => "ok",
            StatusClass::Retry => "retry",
            StatusClass::Discard => "discard",
            StatusClass::Host => "host",
            StatusClass::Bug => "bug",
        }
    }
}

/// Name given to a value that is not in the table (A3.3).
pub const UNKNOWN_STATUS_NAME: &str = "LC_UNKNOWN_STATUS";
/// Message given to a value that is not in the table (A3.3).
pub const UNKNOWN_STATUS_MESSAGE: &str = "Unknown status code.";

pub(crate) const UNKNOWN_STATUS_C: (&core::ffi::CStr, &core::ffi::CStr, &core::ffi::CStr) =
    (c"LC_UNKNOWN_STATUS", c"", c"Unknown status code.");

/// Turns a literal ending in exactly one NUL into a `CStr`; only ever evaluated at compile time.
#[allow(clippy::panic)]
const fn c_str(s: &'static str) -> &'static core::ffi::CStr {
    match core::ffi::CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(c) => c,
        // A table string containing an interior NUL is a bug caught at compile time.
        Err(_) => panic!("status table string with an interior NUL"),
    }
}

impl Status {
    /// The `lc_status` value.
    #[must_use]
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// `true` for `Ok`.
    #[must_use]
    pub const fn is_ok(self) -> bool {
        matches!(self, Status::Ok)
    }
}

impl core::fmt::Display for Status {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} ({}): {}", self.name(), self.code(), self.message())
    }
}
