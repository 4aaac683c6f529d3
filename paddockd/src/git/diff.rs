//! `git diff`: the changes of a project or a scope, capped at [`super::DIFF_MAX_BYTES`].

use std::ffi::OsStr;
use std::io::Read as _;
use std::path::Path;
use std::process::Stdio;

use paddock_proto::{ErrorBody, GitDiff, GitFile};

use super::{DIFF_MAX_BYTES, Git, ScopeFiles, changes, internal, invalid, trimmed};

/// Appends git's stdout to `out` until it holds `cap` bytes; `true` when it had more.
pub(super) fn append_capped<I, S>(
    git: &Git<'_>,
    args: I,
    out: &mut Vec<u8>,
    cap: usize,
) -> Result<bool, ErrorBody>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = git.command(args);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| git.spawn_error(&e))?;
    let stderr = child.stderr.take().map(|e| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = e.take(64 * 1024).read_to_end(&mut s);
            s
        })
    });
    let room = cap.saturating_sub(out.len());
    let mut got = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        stdout
            .take(u64::try_from(room).unwrap_or(u64::MAX).saturating_add(1))
            .read_to_end(&mut got)
            .map_err(|e| internal(format!("reading git diff: {e}")))?;
    }
    let cut = got.len() > room;
    if cut {
        let _ = child.kill();
        // Keep whole lines.
        got.truncate(room);
        let end = got.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        got.truncate(end);
    }
    let status = child
        .wait()
        .map_err(|e| internal(format!("git diff: {e}")))?;
    let err = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    // `diff` exits 1 when there are differences (with --no-index, or --exit-code).
    if !cut && !matches!(status.code(), Some(0 | 1)) {
        return Err(internal(format!(
            "git diff failed ({status}): {}",
            String::from_utf8_lossy(&err).trim()
        )));
    }
    out.extend_from_slice(&got);
    Ok(cut)
}

pub(super) fn diff_blocking(
    slug: &str,
    dir: &Path,
    scope: Option<&ScopeFiles>,
    path: Option<&str>,
) -> Result<GitDiff, ErrorBody> {
    let git = Git { dir };
    let mut reply = GitDiff {
        project_slug: slug.to_owned(),
        is_repo: false,
        diff: String::new(),
        files: Vec::new(),
        truncated: false,
        hidden: 0,
    };
    let Some(prefix) = git.prefix()? else {
        return Ok(reply);
    };
    reply.is_repo = true;
    let changes = changes(&git, &prefix, scope)?;
    reply.hidden = changes.hidden;
    let mut files = changes.files;
    if let Some(path) = path {
        let path = crate::provenance::rel_path(dir, path);
        if let Some(scope) = scope
            && !scope.paths.contains(&path)
        {
            return Err(invalid(format!(
                "{path} is not among the files this scope's steps wrote"
            )));
        }
        files.retain(|f| f.path == path || f.orig_path.as_deref() == Some(path.as_str()));
    }
    let (untracked, tracked): (Vec<&GitFile>, Vec<&GitFile>) =
        files.iter().partition(|f| f.index == "?");
    let mut out = Vec::new();
    if !tracked.is_empty() {
        let base = match git.head()? {
            Some(head) => head,
            None => trimmed(&git.run(["hash-object", "-t", "tree", "/dev/null"])?),
        };
        let mut args: Vec<String> = [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--relative",
            base.as_str(),
            "--",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        for f in &tracked {
            args.push(f.path.clone());
            if let Some(orig) = &f.orig_path {
                args.push(orig.clone());
            }
        }
        reply.truncated = append_capped(&git, &args, &mut out, DIFF_MAX_BYTES)?;
    }
    for f in untracked {
        if reply.truncated {
            break;
        }
        let args = [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-index",
            "--",
            "/dev/null",
            f.path.as_str(),
        ];
        reply.truncated = append_capped(&git, args, &mut out, DIFF_MAX_BYTES)?;
    }
    reply.files = files.into_iter().map(|f| f.path).collect();
    reply.diff = String::from_utf8_lossy(&out).into_owned();
    Ok(reply)
}

/// The diff of a worktree chat's work (`work.rs`): its worktree as it is against the commit
/// its work is measured from, in the project's folder `dir` of the worktree at `root`.
/// `more` (another worktree's work) after `diff`: the text, the files not listed yet, the
/// counts; cut when the whole would pass the bound.
pub(super) fn append(diff: &mut GitDiff, more: GitDiff) {
    diff.truncated |= more.truncated;
    let room = DIFF_MAX_BYTES.saturating_sub(diff.diff.len());
    if more.diff.len() <= room {
        diff.diff.push_str(&more.diff);
    } else {
        // Cut at a line's end, as git's own output is cut.
        let end = (0..=room)
            .rev()
            .find(|&i| more.diff.is_char_boundary(i))
            .unwrap_or(0);
        let cut = more.diff[..end].rfind('\n').map_or(0, |i| i + 1);
        diff.diff.push_str(&more.diff[..cut]);
        diff.truncated = true;
    }
    for f in more.files {
        if !diff.files.contains(&f) {
            diff.files.push(f);
        }
    }
    diff.hidden += more.hidden;
}

pub(super) fn diff_work(
    slug: &str,
    view: &super::scope::WorkView,
    path: Option<&str>,
) -> Result<GitDiff, ErrorBody> {
    let work = super::work::work(&view.root, &view.prefix, view.target.as_deref(), &view.base)?;
    let dir = view.root.join(&view.prefix);
    let mut files = work.paths();
    if let Some(path) = path {
        let path = crate::provenance::rel_path(&dir, path);
        if !files.contains(&path) {
            return Err(invalid(format!(
                "{path} is not among the files this chat's work changed"
            )));
        }
        files = vec![path];
    }
    let mut reply = GitDiff {
        project_slug: slug.to_owned(),
        is_repo: true,
        diff: String::new(),
        files: files.clone(),
        truncated: false,
        hidden: 0,
    };
    if files.is_empty() {
        return Ok(reply);
    }
    let git = Git { dir: &dir };
    let mut args: Vec<String> = [
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--relative",
        work.base.as_str(),
        work.snapshot.as_str(),
        "--",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    args.extend(files);
    let mut out = Vec::new();
    reply.truncated = append_capped(&git, &args, &mut out, DIFF_MAX_BYTES)?;
    reply.diff = String::from_utf8_lossy(&out).into_owned();
    Ok(reply)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn diff(text: &str, files: &[&str]) -> GitDiff {
        GitDiff {
            project_slug: "web".into(),
            is_repo: true,
            diff: text.into(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            truncated: false,
            hidden: 0,
        }
    }

    #[test]
    fn another_worktrees_work_is_appended_within_the_bound() {
        let mut d = diff("a\n", &["one.txt", "two.txt"]);
        append(&mut d, diff("b\n", &["two.txt", "three.txt"]));
        assert_eq!(d.diff, "a\nb\n");
        assert_eq!(d.files, ["one.txt", "two.txt", "three.txt"]);
        assert!(!d.truncated);
        // Past the bound: cut at a line's end (never inside a character), and said.
        let mut d = diff(&"x".repeat(DIFF_MAX_BYTES - 4), &[]);
        append(&mut d, diff("ab\néé\ncd\n", &["big.txt"]));
        assert!(d.truncated);
        assert!(
            d.diff.ends_with("xab\n"),
            "{:?}",
            &d.diff[d.diff.len() - 8..]
        );
        assert!(d.diff.len() <= DIFF_MAX_BYTES);
    }
}
