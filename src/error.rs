//! The one error type of the command layer. Every subcommand returns `Result<(), Error>`;
//! the error's kind decides the exit code, and only `app` turns it into a code and a message,
//! so no module below the entry point prints errors or knows exit numbers.

/// Exit code of a successful run.
pub const EXIT_OK: i32 = 0;
/// Exit code of a runtime failure (the provider failed, a file could not be written, ...).
pub const EXIT_FAIL: i32 = 1;
/// Exit code of a usage error (a bad flag value, a missing argument).
pub const EXIT_USAGE: i32 = 2;
/// Exit code of a run ended by an interrupt (SIGINT, Ctrl+C).
pub const EXIT_INTERRUPTED: i32 = 130;

/// What went wrong, as far as the exit code is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The command line was wrong: exit 2.
    Usage,
    /// The work failed: exit 1.
    Runtime,
    /// The run was interrupted: exit 130.
    Interrupted,
}

impl Kind {
    /// The process exit code for this kind.
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::Usage => EXIT_USAGE,
            Kind::Runtime => EXIT_FAIL,
            Kind::Interrupted => EXIT_INTERRUPTED,
        }
    }
}

/// An error that ends a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A usage error with the message to print (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A runtime failure with the message to print (exit 1).
    #[error("{0}")]
    Runtime(String),
    /// The run already told the user what happened (the turn display printed the provider's
    /// error, or `Interrupted`); only the exit code is left to give.
    #[error("the run ended: {0:?}")]
    Reported(Kind),
}

impl Error {
    /// The kind, which decides the exit code.
    pub fn kind(&self) -> Kind {
        match self {
            Error::Usage(_) => Kind::Usage,
            Error::Runtime(_) => Kind::Runtime,
            Error::Reported(k) => *k,
        }
    }

    /// The message to print, if the user has not been told yet.
    pub fn message(&self) -> Option<&str> {
        match self {
            Error::Usage(m) | Error::Runtime(m) => Some(m),
            Error::Reported(_) => None,
        }
    }

    /// A runtime error from anything printable.
    pub fn runtime(msg: impl std::fmt::Display) -> Error {
        Error::Runtime(msg.to_string())
    }

    /// A usage error from anything printable.
    pub fn usage(msg: impl std::fmt::Display) -> Error {
        Error::Usage(msg.to_string())
    }
}

/// The result of a command.
pub type Result<T = ()> = std::result::Result<T, Error>;

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Runtime(e.to_string())
    }
}

impl From<anyhow::Error> for Error {
    fn from(e: anyhow::Error) -> Error {
        match e.downcast::<Error>() {
            Ok(own) => own,
            Err(e) => Error::Runtime(format!("{e:#}")),
        }
    }
}
