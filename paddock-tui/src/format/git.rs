//! `paddock git status`, `paddock git commit` and `paddock git push` as text.

use std::fmt::Write as _;

use paddock_proto::{GitCommitted, GitPushed, GitStatus};

use super::project_label;

/// The status in git's short format, after a line about the branch. `scoped`: the files are
/// a chat's or a turn's, not the whole project's.
pub fn git_status(s: &GitStatus, scoped: bool) -> String {
    let project = project_label(&s.project_slug);
    if !s.is_repo {
        return format!("project {project} is not in a git repository\n");
    }
    let mut out = String::new();
    match (&s.branch, &s.head) {
        (Some(b), Some(h)) => {
            let _ = write!(out, "On branch {b} ({h})");
        }
        (Some(b), None) => {
            let _ = write!(out, "On branch {b}, no commits yet");
        }
        (None, Some(h)) => {
            let _ = write!(out, "HEAD detached at {h}");
        }
        (None, None) => out.push_str("HEAD detached"),
    }
    if let Some(up) = &s.upstream {
        match (s.ahead.unwrap_or(0), s.behind.unwrap_or(0)) {
            (0, 0) if s.ahead.is_some() => {
                let _ = write!(out, ", up to date with {up}");
            }
            (0, 0) => {
                let _ = write!(out, ", {up} is gone");
            }
            (a, 0) => {
                let _ = write!(out, ", ahead of {up} by {a}");
            }
            (0, b) => {
                let _ = write!(out, ", behind {up} by {b}");
            }
            (a, b) => {
                let _ = write!(out, ", {a} ahead and {b} behind {up}");
            }
        }
    }
    out.push('\n');
    let letter = |l: &str| {
        if l == "." {
            " ".to_owned()
        } else {
            l.to_owned()
        }
    };
    for f in &s.files {
        let _ = write!(out, "{}{} ", letter(&f.index), letter(&f.worktree));
        if let Some(orig) = &f.orig_path {
            let _ = write!(out, "{orig} -> ");
        }
        out.push_str(&f.path);
        out.push('\n');
    }
    if s.files.is_empty() {
        out.push_str(if scoped {
            "No changes of this scope.\n"
        } else {
            "No changes.\n"
        });
    }
    if s.hidden > 0 {
        let _ = writeln!(
            out,
            "{} other changed file{} of project {project} not written by this scope (without --chat/--turn: all).",
            s.hidden,
            if s.hidden == 1 { "" } else { "s" },
        );
    }
    for note in &s.notes {
        let _ = writeln!(out, "Note: {note}");
    }
    if !s.worktrees.is_empty() {
        out.push_str(&super::worktree_summary(&s.worktrees));
    }
    out
}

/// The commit `paddock git commit` made.
pub fn git_committed(c: &GitCommitted) -> String {
    let short = c.commit.get(..7).unwrap_or(&c.commit);
    let n = c.files.len();
    let mut out = format!(
        "Committed {short} on {} ({n} file{}):\n",
        c.branch,
        if n == 1 { "" } else { "s" }
    );
    for f in &c.files {
        let _ = writeln!(out, "  {f}");
    }
    out
}

/// What `paddock git push` did.
pub fn git_pushed(p: &GitPushed) -> String {
    let short = |id: &str| id.get(..7).unwrap_or(id).to_owned();
    let target = format!("{}/{}", p.remote, p.remote_branch);
    let whose = if p.data_root {
        "the data directory's "
    } else {
        ""
    };
    if p.up_to_date {
        return format!(
            "{target} is up to date with {whose}{} ({}); nothing to push\n",
            p.branch,
            short(&p.to)
        );
    }
    let moved = match &p.from {
        Some(from) => format!("{}..{}", short(from), short(&p.to)),
        None => format!("new branch at {}", short(&p.to)),
    };
    let mut out = format!("Pushed {whose}{} to {target} ({moved})\n", p.branch);
    if p.set_upstream {
        let _ = writeln!(out, "{} now tracks {target}", p.branch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_proto::GitFile;

    fn status() -> GitStatus {
        GitStatus {
            project_slug: "web".into(),
            is_repo: true,
            branch: Some("main".into()),
            head: Some("3f9a2c1".into()),
            upstream: Some("origin/main".into()),
            ahead: Some(2),
            behind: Some(0),
            files: vec![
                GitFile {
                    path: "src/a.ts".into(),
                    orig_path: None,
                    index: ".".into(),
                    worktree: "M".into(),
                },
                GitFile {
                    path: "new.txt".into(),
                    orig_path: None,
                    index: "?".into(),
                    worktree: "?".into(),
                },
            ],
            hidden: 1,
            notes: vec![],
            worktrees: Vec::new(),
        }
    }

    #[test]
    fn a_status_reads_like_git_short_status() {
        assert_eq!(
            git_status(&status(), true),
            "On branch main (3f9a2c1), ahead of origin/main by 2\n M src/a.ts\n?? new.txt\n\
             1 other changed file of project web not written by this scope (without --chat/--turn: all).\n"
        );
        let mut clean = status();
        clean.files.clear();
        clean.hidden = 0;
        clean.upstream = None;
        clean.head = None;
        assert_eq!(
            git_status(&clean, false),
            "On branch main, no commits yet\nNo changes.\n"
        );
        clean.is_repo = false;
        clean.project_slug = String::new();
        assert_eq!(
            git_status(&clean, false),
            "project (root) is not in a git repository\n"
        );
    }

    #[test]
    fn a_commit_names_its_files() {
        let c = GitCommitted {
            project_slug: "web".into(),
            commit: "8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60".into(),
            branch: "main".into(),
            files: vec!["a.txt".into()],
        };
        assert_eq!(
            git_committed(&c),
            "Committed 8d1e4b7 on main (1 file):\n  a.txt\n"
        );
    }

    #[test]
    fn a_push_says_what_moved() {
        let mut p = GitPushed {
            project_slug: "web".into(),
            data_root: false,
            branch: "main".into(),
            remote: "origin".into(),
            remote_branch: "main".into(),
            from: Some("3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39".into()),
            to: "8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60".into(),
            up_to_date: false,
            set_upstream: false,
        };
        assert_eq!(
            git_pushed(&p),
            "Pushed main to origin/main (3f9a2c1..8d1e4b7)\n"
        );
        p.from = None;
        p.set_upstream = true;
        p.data_root = true;
        assert_eq!(
            git_pushed(&p),
            "Pushed the data directory's main to origin/main (new branch at 8d1e4b7)\nmain now tracks origin/main\n"
        );
        p.up_to_date = true;
        p.data_root = false;
        assert_eq!(
            git_pushed(&p),
            "origin/main is up to date with main (8d1e4b7); nothing to push\n"
        );
    }
}
