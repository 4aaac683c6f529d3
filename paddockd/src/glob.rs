//! The globs of a `file_changed` hook's `paths` and of scoped tool rules: a small matcher
//! over `/`-separated paths relative to the project's directory.
//!
//! - `*` matches any run of characters within one path segment, `?` one character;
//! - `**` as a whole segment matches any number of segments (also none);
//! - a pattern without `/` matches a file name at any depth (`*.md` is `**/*.md`);
//! - a pattern that matches a directory matches everything beneath it (`docs` and `docs/`
//!   cover `docs/a/b.md`);
//! - a leading `/` or `./` anchors at the project's directory (the default anyway).

/// Whether `path` (relative, `/`-separated) matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim();
    let anchored_at = pattern
        .strip_prefix("./")
        .or_else(|| pattern.strip_prefix('/'));
    let anchored = anchored_at.is_some();
    let pattern = anchored_at.unwrap_or(pattern).trim_end_matches('/');
    if pattern.is_empty() {
        return false;
    }
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if parts.is_empty() {
        return false;
    }
    let pats: Vec<&str> = if anchored || pattern.contains('/') {
        pattern.split('/').filter(|s| !s.is_empty()).collect()
    } else {
        vec!["**", pattern]
    };
    // The path itself, or one of the directories above it.
    (1..=parts.len()).any(|n| segments(&pats, &parts[..n]))
}

fn segments(pats: &[&str], parts: &[&str]) -> bool {
    match pats.split_first() {
        None => parts.is_empty(),
        Some((&"**", rest)) => (0..=parts.len()).any(|skip| segments(rest, &parts[skip..])),
        Some((p, rest)) => match parts.split_first() {
            Some((part, tail)) => segment(p, part) && segments(rest, tail),
            None => false,
        },
    }
}

/// One segment: `*` and `?` wildcards.
fn segment(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative wildcard match with backtracking to the last `*`.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some('?') => {
                pi += 1;
                ti += 1;
            }
            Some(c) if *c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_question_marks_and_double_stars() {
        let yes = [
            ("docs/**/*.md", "docs/a.md"),
            ("docs/**/*.md", "docs/x/y/a.md"),
            ("docs/*.md", "docs/a.md"),
            ("*.md", "README.md"),
            ("*.md", "deep/down/notes.md"),
            ("src/*.r?", "src/main.rs"),
            ("**", "anything/at/all"),
            ("docs", "docs/a/b.md"),
            ("docs/", "docs/a.md"),
            ("/Cargo.toml", "Cargo.toml"),
            ("./src/**", "src/a/b.rs"),
            ("src/*", "src/a/b.rs"),
            ("a*b*c", "aXXbYYc"),
            ("**/test_*.py", "t/test_x.py"),
            ("**/*.md", "a.md"),
            ("ä*", "äöü"),
        ];
        for (p, t) in yes {
            assert!(matches(p, t), "{p} should match {t}");
        }
        let no = [
            ("docs/*.md", "docs/x/a.md"),
            ("docs/**/*.md", "src/a.md"),
            ("docs/**/*.md", "docs/a.txt"),
            ("*.md", "README.mdx"),
            ("src/*.r?", "src/main.rsx"),
            ("/Cargo.toml", "sub/Cargo.toml"),
            ("a*b*c", "aXXbYY"),
            ("?", "ab"),
            ("", "a"),
            ("docs", ""),
        ];
        for (p, t) in no {
            assert!(!matches(p, t), "{p} should not match {t}");
        }
    }
}
