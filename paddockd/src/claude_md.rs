//! The project's own instructions (`CLAUDE.md`), handed to claude as text.
//!
//! Every `claude` paddockd starts loads only its user settings (`--setting-sources user`: the
//! daemon's own Claude home). A project's `.claude/settings.json`, `.claude/settings.local.json`
//! and `.mcp.json` are the repository's, and a cloned repository may be anyone's: observed with
//! both supported releases (docs/claude-cli.md §17), loading them ran the repository's hooks, its
//! `apiKeyHelper` and its MCP servers as commands the moment claude started, before any tool
//! call could be asked, and 2.1.197 took its `defaultMode: bypassPermissions`. paddockd's
//! `allowed_tools` and approvals inbox are the one authority over what an agent may do.
//!
//! Without the project source the CLI also skips the project's CLAUDE.md, which users (and the
//! sweeper, `sweeper/`) write for the agents. So paddockd reads it itself — `CLAUDE.md`,
//! `.claude/CLAUDE.md` and `CLAUDE.local.md` in the agent directory, each confined to the
//! project (a symlink leading out is not followed, `confine.rs`) and capped — and passes the text
//! with `--append-system-prompt`. Its `@path` imports stay text: the CLI would have pulled any
//! file the import names into the context, inside the project or not.

use std::io::Read as _;
use std::path::Path;

/// The files claude reads from its working directory, in the order it reads them.
pub const FILES: &[&str] = &["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"];

/// The most of each file carried (an argument is at most 128 KiB on Linux).
pub const MAX_BYTES: usize = 32 * 1024;

/// The text for `--append-system-prompt`: each instructions file of `agent_dir` that exists
/// and stays inside it, headed by its name; `None` when there is none.
pub fn system_prompt(agent_dir: &Path, private: &crate::confine::Private) -> Option<String> {
    let parts: Vec<String> = FILES
        .iter()
        .filter_map(|name| {
            let text = read(agent_dir, name, private)?;
            let text = text.trim();
            (!text.is_empty()).then(|| {
                format!(
                    "Contents of {name} (the project's instructions; follow them where they concern this project):\n\n{text}"
                )
            })
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// One file's text, at most [`MAX_BYTES`] (cut at a character); `None` when it is missing,
/// unreadable, or leads out of the project.
fn read(agent_dir: &Path, name: &str, private: &crate::confine::Private) -> Option<String> {
    use crate::confine::{Naming, in_project};
    let confined = in_project(private, agent_dir, name, Naming::Relative).ok()?;
    let file = crate::confine::open(&confined.path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_BYTES).unwrap_or(u64::MAX);
    file.take(limit).read_to_end(&mut bytes).ok()?;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if bytes.len() == MAX_BYTES {
        // A cut character shows as U+FFFD at the end: drop it, and say where it was cut.
        while text.ends_with('\u{fffd}') {
            text.pop();
        }
        text.push_str("\n\n[cut here: paddockd passes at most 32 KiB of each instructions file]");
    }
    // An argument cannot hold a NUL.
    Some(text.replace('\0', ""))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::confine::Private;

    #[test]
    fn each_file_inside_the_project_is_carried_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(system_prompt(root, &Private::default()), None);
        std::fs::write(root.join("CLAUDE.md"), "use tabs\n@~/.ssh/id_rsa\n").unwrap();
        std::fs::create_dir(root.join(".claude")).unwrap();
        std::fs::write(root.join(".claude/CLAUDE.md"), "  \n").unwrap();
        std::fs::write(root.join("CLAUDE.local.md"), "mine\0").unwrap();
        let text = system_prompt(root, &Private::default()).unwrap();
        assert!(text.starts_with("Contents of CLAUDE.md"), "{text}");
        assert!(
            text.contains("use tabs\n@~/.ssh/id_rsa"),
            "imports stay text"
        );
        assert!(
            !text.contains(".claude/CLAUDE.md"),
            "an empty file is left out"
        );
        assert!(text.ends_with("Contents of CLAUDE.local.md (the project's instructions; follow them where they concern this project):\n\nmine"));
    }

    #[test]
    fn a_file_that_leads_out_of_the_project_or_is_huge_is_not_carried_whole() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("secret.md");
        std::fs::write(&outside, "SECRET").unwrap();
        let root = dir.path().join("p");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("CLAUDE.md")).unwrap();
        assert_eq!(system_prompt(&root, &Private::default()), None);
        std::fs::remove_file(root.join("CLAUDE.md")).unwrap();
        std::fs::write(root.join("CLAUDE.md"), "é".repeat(MAX_BYTES)).unwrap();
        let text = system_prompt(&root, &Private::default()).unwrap();
        assert!(text.len() < MAX_BYTES + 300);
        assert!(text.ends_with("at most 32 KiB of each instructions file]"));
        assert!(!text.contains('\u{fffd}'));
    }
}
