//! Preloaded context (reference §4 step 4): a new chat started with "preload context" gets the
//! project's curated state — OVERVIEW.md and the tail of CHANGELOG.md — wrapped and prepended
//! to its first prompt, so the agent starts knowing what earlier chats did:
//!
//! ```text
//! <project-context>
//! …OVERVIEW.md…
//!
//! …the end of CHANGELOG.md…
//! </project-context>
//!
//! My request:
//! <the message>
//! ```
//!
//! Only when the project has a non-empty OVERVIEW.md (the sign a sweep has curated it). The
//! chat's title is the request, not the context: [`strip`] takes the wrapper off.

use std::path::Path;

/// Where the context block starts.
pub const OPEN: &str = "<project-context>";
/// Between the context block and the request.
pub const REQUEST_MARKER: &str = "</project-context>\n\nMy request:\n";
/// The most of CHANGELOG.md carried (its end: the newest entries).
pub const CHANGELOG_TAIL_BYTES: usize = 8 * 1024;
/// The most of OVERVIEW.md carried.
pub const OVERVIEW_MAX_BYTES: usize = 32 * 1024;

/// `message` with the project's context in front, or unchanged when the project has no
/// overview (or it cannot be read).
pub fn compose(meta_dir: &Path, message: &str) -> String {
    let overview = read_capped(&meta_dir.join("OVERVIEW.md"), OVERVIEW_MAX_BYTES, false);
    if overview.trim().is_empty() {
        return message.to_owned();
    }
    let changelog = read_capped(&meta_dir.join("CHANGELOG.md"), CHANGELOG_TAIL_BYTES, true);
    wrap(&overview, &changelog, message)
}

/// The wrapper around a message.
pub fn wrap(overview: &str, changelog: &str, message: &str) -> String {
    let context: Vec<&str> = [overview.trim(), changelog.trim()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    format!(
        "{OPEN}\n{}\n{REQUEST_MARKER}{message}",
        context.join("\n\n")
    )
}

/// The request inside a wrapped message (the message itself when it is not wrapped).
pub fn strip(text: &str) -> &str {
    if !text.starts_with(OPEN) {
        return text;
    }
    match text.find(REQUEST_MARKER) {
        Some(i) => &text[i + REQUEST_MARKER.len()..],
        None => text,
    }
}

/// A text file's content, at most `max` bytes: its start, or (`tail`) its end from the first
/// line that fits, with a note that earlier entries were left out. Missing or unreadable: "".
fn read_capped(path: &Path, max: usize, tail: bool) -> String {
    let mut bytes = Vec::new();
    let read = crate::confine::open_own(path).and_then(|mut f| {
        use std::io::Read as _;
        f.read_to_end(&mut bytes)
    });
    if read.is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    if text.len() <= max {
        return text.into_owned();
    }
    if tail {
        let mut start = text.len() - max;
        while !text.is_char_boundary(start) {
            start += 1;
        }
        let rest = &text[start..];
        let rest = rest.find('\n').map_or(rest, |i| &rest[i + 1..]);
        format!("(earlier changelog entries left out)\n{rest}")
    } else {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n(the overview goes on)", &text[..end])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn without_an_overview_the_message_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(compose(dir.path(), "hello"), "hello");
        std::fs::write(dir.path().join("OVERVIEW.md"), "  \n").unwrap();
        std::fs::write(dir.path().join("CHANGELOG.md"), "# Changelog\n").unwrap();
        assert_eq!(compose(dir.path(), "hello"), "hello");
    }

    #[test]
    fn the_overview_and_the_changelogs_end_wrap_the_request_and_strip_gives_it_back() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("OVERVIEW.md"), "# Web\nPostgres.\n").unwrap();
        let mut log = String::from("# Changelog\n");
        for i in 0..2000 {
            log.push_str(&format!("- entry {i}\n"));
        }
        std::fs::write(dir.path().join("CHANGELOG.md"), &log).unwrap();
        let composed = compose(dir.path(), "Add an index.");
        assert!(composed.starts_with("<project-context>\n# Web\nPostgres.\n\n(earlier changelog entries left out)\n- entry "), "{composed:.200}");
        assert!(
            composed.contains("- entry 1999\n</project-context>\n\nMy request:\nAdd an index.")
        );
        assert!(!composed.contains("- entry 0\n"));
        assert!(composed.len() < CHANGELOG_TAIL_BYTES + 200);
        assert_eq!(strip(&composed), "Add an index.");
        assert_eq!(strip("plain"), "plain");
        assert_eq!(
            strip("<project-context>\ncut short"),
            "<project-context>\ncut short"
        );
    }

    #[test]
    fn no_changelog_wraps_the_overview_alone() {
        assert_eq!(
            wrap("# Web", "", "Go."),
            "<project-context>\n# Web\n</project-context>\n\nMy request:\nGo."
        );
    }
}
