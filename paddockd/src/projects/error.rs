//! What can go wrong with a project, and how a request is told.

use std::path::PathBuf;

use paddock_proto::{ErrorBody, ErrorCode};

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error(
        "invalid project slug {0:?}: use 1-64 lower-case letters, digits, '-', '_' or '.', starting with a letter or digit"
    )]
    InvalidSlug(String),
    #[error("project {0:?} already exists")]
    Exists(String),
    #[error(
        "no project {0:?}; `paddock project ls` lists them (`paddock project add {0}` makes it)"
    )]
    NotFound(String),
    #[error("project directory {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a usable project file: {message}; fix it by hand (paddock never rewrites a file it cannot load)"
    )]
    Corrupt { path: PathBuf, message: String },
    #[error(
        "not changing {path}: the change would make it unusable ({message}); nothing was written"
    )]
    Refused { path: PathBuf, message: String },
    /// A request that cannot be carried out as asked; the message says why and what to do.
    #[error("{0}")]
    Invalid(String),
    /// Cloning the repository failed; nothing was left behind.
    #[error("{0}")]
    Clone(String),
}

/// A project error as the wire's error, with the code a client can act on.
pub fn project_error(e: ProjectError) -> ErrorBody {
    let code = match &e {
        ProjectError::InvalidSlug(_) | ProjectError::Invalid(_) | ProjectError::Clone(_) => {
            ErrorCode::InvalidArgument
        }
        ProjectError::Exists(_) => ErrorCode::AlreadyExists,
        ProjectError::NotFound(_) => ErrorCode::NotFound,
        ProjectError::Io { .. } | ProjectError::Corrupt { .. } | ProjectError::Refused { .. } => {
            ErrorCode::Internal
        }
    };
    ErrorBody::new(code, e.to_string())
}
