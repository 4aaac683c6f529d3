//! A project's files: directory listings and file text.

use serde::{Deserialize, Serialize};

use super::*;

/// `files:list`: one directory of a project's directory. Paths are relative to the project's
/// directory; `..`, absolute paths and symlinks leading out of it are refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesList {
    pub project_slug: String,
    /// The directory, relative to the project's directory; `""` is the project's directory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// Also list entries whose names start with a dot (`.git` among them).
    #[serde(default, skip_serializing_if = "is_false")]
    pub hidden: bool,
    /// At most this many entries (the daemon's default and cap: [`FILES_LIST_MAX`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// The most entries `files:list` answers with.
pub const FILES_LIST_MAX: u32 = 2000;

/// One directory's entries: directories first, then files, each by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileListing {
    pub project_slug: String,
    /// The directory listed, relative to the project's directory (`""` for its top).
    pub path: String,
    pub entries: Vec<FileEntry>,
    /// More entries than the limit: the rest were left out.
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
}

/// One entry of a directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    pub name: String,
    /// A directory (to list), or else a file (to read).
    #[serde(default, skip_serializing_if = "is_false")]
    pub dir: bool,
    /// A symbolic link (described by what it points at when that is inside the project).
    #[serde(default, skip_serializing_if = "is_false")]
    pub symlink: bool,
    /// A symlink leading out of the project's directory, or to nothing: neither listed nor read.
    #[serde(default, skip_serializing_if = "is_false")]
    pub outside: bool,
    /// Bytes (0 for a directory).
    pub size: u64,
    /// Last modified (RFC 3339), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
}

/// `files:read`: a file of a project's directory, confined as `files:list` is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesRead {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    /// At most this many bytes of text (the daemon's default and cap: [`FILES_READ_MAX`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
}

/// The most bytes of text `files:read` answers with (1 MiB).
pub const FILES_READ_MAX: u64 = 1024 * 1024;

/// A file's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileText {
    pub project_slug: String,
    /// Relative to the project's directory.
    pub path: String,
    /// The whole file's size in bytes.
    pub size: u64,
    /// Last modified (RFC 3339), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<String>,
    /// The text (UTF-8), cut at the cap; empty when `binary`.
    pub text: String,
    /// Not text (a NUL byte, or not UTF-8): `text` is empty.
    #[serde(default, skip_serializing_if = "is_false")]
    pub binary: bool,
    /// The file is longer than the cap: `text` is its beginning (cut at a character boundary).
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
}
