//! The error type of the safe Rust API: a status from the table plus, where known, a byte offset.

use crate::status::Status;

/// A failed check: the status the C ABI would return, and where the problem was found.
///
/// The error never carries bytes of the input (SPEC §1): only the status and an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Error {
    status: Status,
    offset: Option<usize>,
}

impl Error {
    /// An error with this status and no known offset.
    #[must_use]
    pub const fn new(status: Status) -> Error {
        Error { status, offset: None }
    }

    /// An error with this status found at `offset` bytes into the checked buffer.
    #[must_use]
    pub const fn at(status: Status, offset: usize) -> Error {
        Error { status, offset: Some(offset) }
    }

    /// The status (never `Status::Ok`).
    #[must_use]
    pub const fn status(&self) -> Status {
        self.status
    }

    /// The byte offset in the checked buffer where the problem was detected, when known.
    ///
    /// For the summary inside an output reply the offset is into the decoded summary text.
    #[must_use]
    pub const fn offset(&self) -> Option<usize> {
        self.offset
    }
}

impl From<Status> for Error {
    fn from(status: Status) -> Error {
        Error::new(status)
    }
}

/// The C ABI returns only the status (A3.7): `?` in an export turns an [`Error`] into it.
impl From<Error> for Status {
    fn from(error: Error) -> Status {
        error.status
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "{} (at byte {offset})", self.status),
            None => write!(f, "{}", self.status),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results of the safe API.
pub type Result<T> = core::result::Result<T, Error>;
