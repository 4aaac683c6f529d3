//! Who the daemon's own commits are by: `git_author_name` and `git_author_email`.

/// Who the daemon's own commits are by (`git_author_name` / `git_author_email`): set on the
/// child as `GIT_AUTHOR_*` and `GIT_COMMITTER_*`. What is unset comes from git's own
/// configuration as before; the daemon never invents an identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitIdentity {
    pub name: Option<String>,
    pub email: Option<String>,
}
