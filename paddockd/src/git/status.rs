//! `git status`: the branch line and the changed files, parsed from porcelain v1 `-z`.

use std::collections::HashSet;
use std::path::Path;

use paddock_proto::{ErrorBody, GitFile, GitStatus};

use super::Git;

/// The branch line of `git status --branch`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct BranchLine {
    pub(super) branch: Option<String>,
    pub(super) upstream: Option<String>,
    pub(super) ahead: Option<u32>,
    pub(super) behind: Option<u32>,
}

pub(super) fn parse_branch(line: &str) -> BranchLine {
    let mut out = BranchLine::default();
    if let Some(rest) = line
        .strip_prefix("No commits yet on ")
        .or_else(|| line.strip_prefix("Initial commit on "))
    {
        out.branch = Some(rest.to_owned());
        return out;
    }
    if line.starts_with("HEAD (no branch)") {
        return out;
    }
    let (branch, rest) = match line.split_once("...") {
        Some((b, rest)) => (b, Some(rest)),
        None => (line.split(' ').next().unwrap_or(line), None),
    };
    out.branch = Some(branch.to_owned());
    if let Some(rest) = rest {
        let (upstream, counts) = rest.split_once(' ').unwrap_or((rest, ""));
        out.upstream = Some(upstream.to_owned());
        if !counts.contains("[gone]") {
            out.ahead = Some(0);
            out.behind = Some(0);
            let counts = counts.trim_start_matches('[').trim_end_matches(']');
            for part in counts.split(", ") {
                if let Some(n) = part.strip_prefix("ahead ") {
                    out.ahead = n.parse().ok();
                } else if let Some(n) = part.strip_prefix("behind ") {
                    out.behind = n.parse().ok();
                }
            }
        }
    }
    out
}

/// Parses `git status --porcelain=v1 -z --branch`; paths made relative to `prefix`.
pub(super) fn parse_status(raw: &[u8], prefix: &str) -> (BranchLine, Vec<GitFile>) {
    let mut branch = BranchLine::default();
    let mut files = Vec::new();
    let mut fields = raw
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let rel = |p: &str| p.strip_prefix(prefix).unwrap_or(p).to_owned();
    let letter = |c: char| {
        if c == ' ' {
            ".".to_owned()
        } else {
            c.to_string()
        }
    };
    while let Some(entry) = fields.next() {
        if let Some(line) = entry.strip_prefix("## ") {
            branch = parse_branch(line);
            continue;
        }
        let mut chars = entry.chars();
        let (Some(x), Some(y), Some(' ')) = (chars.next(), chars.next(), chars.next()) else {
            continue;
        };
        let path = chars.as_str();
        let orig_path = if matches!(x, 'R' | 'C') {
            fields.next().map(|p| rel(&p))
        } else {
            None
        };
        files.push(GitFile {
            path: rel(path),
            orig_path,
            index: letter(x),
            worktree: letter(y),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (branch, files)
}

/// The files of a scope: `None` for the whole project.
#[derive(Debug, Default)]
pub struct ScopeFiles {
    pub(super) paths: HashSet<String>,
    pub(super) notes: Vec<String>,
}

impl ScopeFiles {
    pub(super) fn keeps(&self, f: &GitFile) -> bool {
        self.paths.contains(&f.path) || f.orig_path.as_ref().is_some_and(|p| self.paths.contains(p))
    }
}

pub(super) struct Changes {
    pub(super) branch: BranchLine,
    pub(super) files: Vec<GitFile>,
    pub(super) hidden: u32,
}

/// The changed files under the directory, those of the scope only.
pub(super) fn changes(
    git: &Git<'_>,
    prefix: &str,
    scope: Option<&ScopeFiles>,
) -> Result<Changes, ErrorBody> {
    let raw = git.run([
        "status",
        "--porcelain=v1",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--no-renames",
        "--",
        ".",
    ])?;
    let (branch, mut files) = parse_status(&raw, prefix);
    let before = files.len();
    if let Some(scope) = scope {
        files.retain(|f| scope.keeps(f));
    }
    let hidden = u32::try_from(before - files.len()).unwrap_or(u32::MAX);
    Ok(Changes {
        branch,
        files,
        hidden,
    })
}

pub(super) fn status_blocking(
    slug: &str,
    dir: &Path,
    scope: Option<&ScopeFiles>,
) -> Result<GitStatus, ErrorBody> {
    let git = Git { dir };
    let mut status = GitStatus {
        project_slug: slug.to_owned(),
        is_repo: false,
        branch: None,
        head: None,
        upstream: None,
        ahead: None,
        behind: None,
        files: Vec::new(),
        hidden: 0,
        notes: Vec::new(),
        worktrees: Vec::new(),
    };
    let Some(prefix) = git.prefix()? else {
        return Ok(status);
    };
    let changes = changes(&git, &prefix, scope)?;
    status.is_repo = true;
    status.head = git
        .head()?
        .map(|h| h.get(..7).map_or(h.clone(), str::to_owned));
    status.branch = changes.branch.branch;
    status.upstream = changes.branch.upstream;
    status.ahead = changes.branch.ahead;
    status.behind = changes.branch.behind;
    status.files = changes.files;
    status.hidden = changes.hidden;
    status.notes = scope.map(|s| s.notes.clone()).unwrap_or_default();
    Ok(status)
}
