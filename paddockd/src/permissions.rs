//! The CLI's `can_use_tool` requests against the project's permission settings: a call that
//! matches a rule of `allowed_tools` runs at once; anything else goes to the approvals inbox
//! (`approvals.rs`), whose answer (or timeout) is written back with [`answer`].
//!
//! A rule is written like Claude Code's own permission rules:
//!
//! - `Tool`: every call of that tool (`Read`, `mcp__github__get_issue`);
//! - `prefix*`: every tool whose name starts with `prefix` (`mcp__paddock__*`);
//! - `Bash(CMD:*)`: a command whose first words are CMD's (`Bash(mkdir:*)` allows
//!   `mkdir -p x`, `Bash(git commit:*)` allows `git commit -m m`); `Bash(CMD)`: that command
//!   exactly. A command with anything a shell would read as more than one simple command or a
//!   redirection (`;`, `&`, `|`, a newline, `>`, `<`, `` ` ``, `$(`, parentheses) matches no
//!   `Bash(...)` rule: `mkdir x && rm -rf y` is asked;
//! - `Edit(PATTERN)`, `Write(...)`, `MultiEdit(...)`, `NotebookEdit(...)`, `Read(...)`,
//!   `Glob(...)`, `Grep(...)`: a call whose file (or, for Glob and Grep, the directory searched;
//!   the project's directory when none is given) matches the glob PATTERN. A PATTERN starting
//!   with `/` is absolute; any other is relative to the project's directory (and matches no
//!   path outside it). `**` matches any number of path segments (none too), `*` any characters
//!   within one, `?` one character; a pattern naming a directory covers what is below it, and
//!   one without `/` a file name at any depth (the hooks' globs, `glob.rs`):
//!   `Edit(src/**)` allows editing anything under `<project>/src`, `Write(/tmp/out/**)` anything
//!   under `/tmp/out`. Paths are compared after `.` and `..` are resolved (lexically);
//! - `WebFetch(domain:HOST)`: a fetch of a URL on HOST;
//! - `mcp__paddock__send_file(PATTERN)`: a `send_file` of a real file matching PATTERN, as for
//!   `Read(...)`. A rule without a scope covers `send_file` only inside the project ([`SEND_FILE`]).
//!
//! "Always" in the inbox adds the narrowest such rule that still covers the next call of the
//! same kind ([`always_rule`]): for Bash the command's first word, or its first two when the
//! first is a tool whose second word picks what it does (`git commit`, `npm run`, `cargo
//! test`; [`TWO_WORD`]) — never the whole tool; for file tools the file's directory and
//! everything below it; for WebFetch the URL's host; the bare tool name for any other tool,
//! which has no input to scope.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Commands whose second word says what they do: "always" on `git commit` allows
/// `git commit:*`, not every git command.
pub const TWO_WORD: &[&str] = &[
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "cargo",
    "go",
    "docker",
    "kubectl",
    "gh",
    "make",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "systemctl",
    "brew",
    "apt",
    "apt-get",
    "dotnet",
    "mvn",
    "gradle",
];

/// Tools whose call names one file, and the input key that holds it.
const FILE_TOOLS: &[(&str, &str)] = &[
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("Write", "file_path"),
    ("Read", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// `send_file` reads the file it is given on paddockd's side. A rule that does not scope a
/// path (`mcp__paddock__*`, which every chat gets) covers it only for a file inside the
/// project's directory, symlinks resolved; any other file is asked, like a `Read` outside
/// the project, or allowed by a scoped rule (`mcp__paddock__send_file(/srv/shared/**)`, what
/// "always" adds). `agent/tools.rs` checks the same before it reads.
pub const SEND_FILE: &str = "mcp__paddock__send_file";

/// The file a `send_file` call reads: `file_path` (alias `path`), unless it gives `content`.
pub fn send_file_path(input: &Value) -> Option<&str> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    if s("content").is_some() {
        return None;
    }
    [s("file_path"), s("path")]
        .into_iter()
        .flatten()
        .find(|p| !p.trim().is_empty())
}

/// Whether a `send_file` call reads a file that is not inside the project's directory.
fn sends_from_outside(tool: &str, input: &Value, project_dir: &Path) -> bool {
    use crate::confine::{Naming, Place, Private};
    tool == SEND_FILE
        && send_file_path(input).is_some_and(|raw| {
            !matches!(
                crate::confine::locate(&Private::default(), project_dir, raw, Naming::Agent),
                Ok(Place::Inside(_))
            )
        })
}

/// Tools that search a directory (`path`, the project's directory when absent).
const SEARCH_TOOLS: &[&str] = &["Glob", "Grep"];

/// Whether a call of `tool` with `input`, in a project whose agents run in `project_dir`, is
/// allowed by one of the rules.
pub fn allowed(tool: &str, input: &Value, rules: &[String], project_dir: &Path) -> bool {
    rules
        .iter()
        .any(|rule| matches(rule, tool, input, project_dir))
}

/// Whether one rule allows the call.
pub fn matches(rule: &str, tool: &str, input: &Value, project_dir: &Path) -> bool {
    let rule = rule.trim();
    let Some((name, scope)) = scoped(rule) else {
        let named = match rule.strip_suffix('*') {
            Some(prefix) => tool.starts_with(prefix),
            None => rule == tool,
        };
        return named && !sends_from_outside(tool, input, project_dir);
    };
    if name != tool {
        return false;
    }
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    if tool == "Bash" {
        return s("command").is_some_and(|c| command_matches(scope, c));
    }
    if tool == "WebFetch" {
        return match scope.strip_prefix("domain:") {
            Some(host) => s("url")
                .and_then(url_host)
                .is_some_and(|h| h.eq_ignore_ascii_case(host)),
            None => false,
        };
    }
    let Some(path) = call_path(tool, input, project_dir) else {
        return false;
    };
    path_matches(scope, &path, project_dir)
}

/// Whether `path` (absolute, normalized) matches a rule's PATTERN: an absolute one against the
/// whole path, a relative one against the path inside the project's directory (a path outside
/// it matches none). The glob is the hooks' (`glob.rs`, gitignore-like: `**` any number
/// of segments, `*` and `?` within one, a pattern naming a directory covers what is below it).
fn path_matches(pattern: &str, path: &Path, project_dir: &Path) -> bool {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return false;
    }
    let (pattern, rel) = if pattern.starts_with('/') {
        (pattern.to_owned(), path.to_path_buf())
    } else {
        let Ok(rel) = path.strip_prefix(crate::confine::normalize(project_dir)) else {
            return false;
        };
        (pattern.to_owned(), rel.to_path_buf())
    };
    let rel = rel.to_string_lossy();
    let rel = rel.trim_start_matches('/');
    if rel.is_empty() {
        // The project's directory itself (a search of all of it), or `/`.
        return pattern.trim_start_matches('/') == "**";
    }
    crate::glob::matches(&pattern, rel)
}

/// `Tool(scope)` split in two; `None` for a bare rule.
fn scoped(rule: &str) -> Option<(&str, &str)> {
    let inner = rule.strip_suffix(')')?;
    let (name, scope) = inner.split_once('(')?;
    (!name.is_empty()).then_some((name, scope))
}

/// The file (or searched directory) a call of a path-scoped tool touches, absolute and
/// normalized; `None` for a tool without one.
fn call_path(tool: &str, input: &Value, project_dir: &Path) -> Option<PathBuf> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let given = if let Some((_, key)) = FILE_TOOLS.iter().find(|(t, _)| *t == tool) {
        s(key)?
    } else if tool == SEND_FILE {
        send_file_path(input)?
    } else if SEARCH_TOOLS.contains(&tool) {
        s("path").unwrap_or(".")
    } else {
        return None;
    };
    Some(crate::confine::normalize(&project_dir.join(given)))
}

/// Why a call is denied at once, whatever the rules and whoever would answer: its file (or
/// searched directory) is paddockd's own state (`confine.rs`). `None` for any other call.
pub fn never(
    tool: &str,
    input: &Value,
    project_dir: &Path,
    private: &crate::confine::Private,
) -> Option<String> {
    let path = call_path(tool, input, project_dir)?;
    match crate::confine::readable(private, &path.to_string_lossy()) {
        Err(e @ crate::confine::Refused::Private(_)) => Some(format!("{tool}: {e}")),
        _ => None,
    }
}

/// Whether a `Bash(...)` scope allows `command`: `CMD:*` when the command's first words are
/// CMD's, `CMD` when it is CMD exactly; never a compound command.
pub fn command_matches(scope: &str, command: &str) -> bool {
    if compound(command) {
        return false;
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    match scope.strip_suffix(":*") {
        Some(prefix) => {
            let want: Vec<&str> = prefix.split_whitespace().collect();
            !want.is_empty() && words.starts_with(&want)
        }
        None => {
            let want: Vec<&str> = scope.split_whitespace().collect();
            !want.is_empty() && words == want
        }
    }
}

/// Whether a shell would read `command` as more than one simple command, or with a
/// redirection or substitution: such a command matches no prefix rule.
fn compound(command: &str) -> bool {
    command.contains("$(")
        || command.chars().any(|c| {
            matches!(
                c,
                ';' | '&' | '|' | '\n' | '\r' | '>' | '<' | '`' | '(' | ')'
            )
        })
}

/// The host of an `http(s)` URL, without user info or port.
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split(':').next()?;
    (!host.is_empty()).then_some(host)
}

/// The rule "always" adds for this call, scoped as narrowly as the call allows; `None` when
/// none can be scoped (a Bash call with no command: adding the whole tool would allow every
/// command).
pub fn always_rule(tool: &str, input: &Value, project_dir: &Path) -> Option<String> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    if tool == "Bash" {
        let words: Vec<&str> = s("command")?.split_whitespace().collect();
        let first = *words.first()?;
        if first.chars().any(|c| ";&|<>`()$\"'\\".contains(c)) {
            return None;
        }
        let prefix = match words.get(1) {
            Some(second)
                if TWO_WORD.contains(&first)
                    && !second.starts_with('-')
                    && second
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_:.".contains(c)) =>
            {
                format!("{first} {second}")
            }
            _ => first.to_owned(),
        };
        return Some(format!("Bash({prefix}:*)"));
    }
    if tool == "WebFetch" {
        return s("url")
            .and_then(url_host)
            .map(|h| format!("WebFetch(domain:{h})"));
    }
    let is_file = FILE_TOOLS.iter().any(|(t, _)| *t == tool) || tool == SEND_FILE;
    if !is_file && !SEARCH_TOOLS.contains(&tool) {
        return Some(tool.to_owned());
    }
    let path = call_path(tool, input, project_dir)?;
    // A file's directory; a searched directory itself.
    let dir = if is_file {
        path.parent().map(Path::to_path_buf)?
    } else {
        path
    };
    // A name with glob characters would match more than the directory it names.
    if dir.to_string_lossy().contains(['*', '?', '(', ')']) {
        return None;
    }
    let project = crate::confine::normalize(project_dir);
    let pattern = match dir.strip_prefix(&project) {
        Ok(rel) if rel.as_os_str().is_empty() => "**".to_owned(),
        Ok(rel) => format!("{}/**", rel.to_string_lossy()),
        Err(_) if dir == Path::new("/") => "/**".to_owned(),
        Err(_) => format!("{}/**", dir.to_string_lossy()),
    };
    Some(format!("{tool}({pattern})"))
}

/// The `control_response` for a `can_use_tool` request.
pub fn answer(request_id: &str, input: &Value, deny: Option<&str>) -> Value {
    let response = match deny {
        None => json!({"behavior": "allow", "updatedInput": input}),
        Some(message) => json!({"behavior": "deny", "message": message}),
    };
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response}
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const DIR: &str = "/home/ana/web";

    fn ok(rule: &str, tool: &str, input: Value) -> bool {
        allowed(tool, &input, &[rule.to_owned()], Path::new(DIR))
    }

    fn bash(command: &str) -> Value {
        json!({ "command": command })
    }

    #[test]
    fn bare_names_and_prefixes_allow_the_whole_tool() {
        let p = vec!["Bash".to_owned(), "mcp__paddock__*".to_owned()];
        let none = Value::Null;
        let dir = Path::new(DIR);
        assert!(allowed("Bash", &bash("rm -rf /"), &p, dir));
        assert!(!allowed("BashX", &none, &p, dir));
        assert!(allowed("mcp__paddock__send_file", &none, &p, dir));
        assert!(!allowed("Edit", &none, &p, dir));
        assert!(!allowed("Edit", &none, &[], dir));
    }

    #[test]
    fn a_command_prefix_rule_allows_that_command_and_nothing_chained_to_it() {
        let rule = "Bash(mkdir:*)";
        assert!(ok(rule, "Bash", bash("mkdir -p x")));
        assert!(ok(rule, "Bash", bash("mkdir")));
        assert!(ok(rule, "Bash", bash("  mkdir   a b")));
        assert!(!ok(rule, "Bash", bash("rm -rf x")));
        assert!(
            !ok(rule, "Bash", bash("mkdirx y")),
            "a word, not a string prefix"
        );
        for chained in [
            "mkdir x && rm -rf y",
            "mkdir x; rm -rf y",
            "mkdir x || rm y",
            "mkdir x | sh",
            "mkdir x & rm y",
            "mkdir x\nrm y",
            "mkdir $(rm -rf y)",
            "mkdir `rm y`",
            "mkdir x > /etc/passwd",
            "mkdir (x)",
        ] {
            assert!(!ok(rule, "Bash", bash(chained)), "{chained}");
        }
        assert!(!ok(rule, "Edit", bash("mkdir x")), "another tool");
        assert!(!ok(rule, "Bash", json!({})), "no command");
        // Two words.
        let rule = "Bash(git commit:*)";
        assert!(ok(rule, "Bash", bash("git commit -m msg")));
        assert!(!ok(rule, "Bash", bash("git push --force")));
        // Exact.
        assert!(ok("Bash(npm test)", "Bash", bash("npm  test")));
        assert!(!ok("Bash(npm test)", "Bash", bash("npm test -- --watch")));
        assert!(
            !ok("Bash(:*)", "Bash", bash("ls")),
            "an empty prefix allows nothing"
        );
    }

    #[test]
    fn a_path_rule_allows_files_under_its_directory() {
        let file = |p: &str| json!({ "file_path": p });
        assert!(ok("Edit(src/**)", "Edit", file("/home/ana/web/src/a.rs")));
        assert!(
            ok("Edit(src/**)", "Edit", file("src/deep/er/a.rs")),
            "relative to the project"
        );
        assert!(!ok("Edit(src/**)", "Edit", file("/home/ana/web/docs/a.md")));
        assert!(
            !ok(
                "Edit(src/**)",
                "Edit",
                file("/home/ana/web/src/../../.bashrc")
            ),
            "dot-dots resolved"
        );
        assert!(!ok("Edit(src/**)", "Write", file("/home/ana/web/src/a.rs")));
        assert!(ok("Write(/tmp/out/**)", "Write", file("/tmp/out/x/y.txt")));
        assert!(!ok("Write(/tmp/out/**)", "Write", file("/tmp/other.txt")));
        assert!(ok("Edit(src/*.rs)", "Edit", file("src/a.rs")));
        assert!(!ok("Edit(src/*.rs)", "Edit", file("src/sub/a.rs")));
        assert!(ok("Edit(**)", "Edit", file("/home/ana/web/README.md")));
        assert!(
            ok("Edit(*.md)", "Edit", file("docs/deep/a.md")),
            "a name at any depth"
        );
        assert!(
            !ok("Edit(*.md)", "Edit", file("/elsewhere/a.md")),
            "but in the project"
        );
        assert!(!ok("Edit(**)", "Edit", file("/home/ana/other/README.md")));
        assert!(!ok("Edit(src/**)", "Edit", json!({})), "no file");
        assert!(ok(
            "NotebookEdit(nb/**)",
            "NotebookEdit",
            json!({"notebook_path": "nb/a.ipynb"})
        ));
        // Searches: the directory searched, the project's when none is given.
        assert!(ok("Grep(**)", "Grep", json!({"pattern": "x"})));
        assert!(ok(
            "Grep(src/**)",
            "Grep",
            json!({"pattern": "x", "path": "src"})
        ));
        assert!(!ok("Grep(src/**)", "Grep", json!({"pattern": "x"})));
    }

    #[test]
    fn a_domain_rule_allows_fetches_from_that_host() {
        let url = |u: &str| json!({ "url": u });
        let rule = "WebFetch(domain:docs.rs)";
        assert!(ok(rule, "WebFetch", url("https://docs.rs/serde")));
        assert!(ok(rule, "WebFetch", url("https://u:p@DOCS.rs:443/x?y")));
        assert!(!ok(rule, "WebFetch", url("https://docs.rs.evil.com/")));
        assert!(!ok(
            "WebFetch(docs.rs)",
            "WebFetch",
            url("https://docs.rs/")
        ));
    }

    #[test]
    fn always_scopes_the_rule_to_the_call() {
        let dir = Path::new(DIR);
        let rule = |tool: &str, input: Value| always_rule(tool, &input, dir);
        assert_eq!(
            rule("Bash", bash("mkdir -p x")).as_deref(),
            Some("Bash(mkdir:*)")
        );
        assert_eq!(
            rule("Bash", bash("git commit -m 'x'")).as_deref(),
            Some("Bash(git commit:*)")
        );
        assert_eq!(
            rule("Bash", bash("npm run build")).as_deref(),
            Some("Bash(npm run:*)")
        );
        assert_eq!(
            rule("Bash", bash("git --no-pager log")).as_deref(),
            Some("Bash(git:*)")
        );
        assert_eq!(rule("Bash", bash("   ")), None, "never the whole tool");
        assert_eq!(rule("Bash", json!({})), None);
        assert_eq!(rule("Bash", bash("$(rm) x")), None);
        assert_eq!(
            rule("Edit", json!({"file_path": "/home/ana/web/src/app/a.ts"})).as_deref(),
            Some("Edit(src/app/**)")
        );
        assert_eq!(
            rule("Write", json!({"file_path": "README.md"})).as_deref(),
            Some("Write(**)")
        );
        assert_eq!(
            rule("Write", json!({"file_path": "/tmp/out/a.txt"})).as_deref(),
            Some("Write(/tmp/out/**)")
        );
        assert_eq!(
            rule("Grep", json!({"pattern": "x", "path": "src"})).as_deref(),
            Some("Grep(src/**)")
        );
        assert_eq!(
            rule("WebFetch", json!({"url": "https://docs.rs/x"})).as_deref(),
            Some("WebFetch(domain:docs.rs)")
        );
        assert_eq!(
            rule("mcp__github__get_issue", json!({"n": 1})).as_deref(),
            Some("mcp__github__get_issue")
        );
        // Each rule allows the call it was made from (a simple one).
        for (tool, input) in [
            ("Bash", bash("mkdir -p x")),
            ("Bash", bash("git commit -m x")),
            ("Edit", json!({"file_path": "/home/ana/web/src/app/a.ts"})),
            ("Write", json!({"file_path": "/tmp/out/a.txt"})),
            ("Grep", json!({"pattern": "x"})),
        ] {
            let r = always_rule(tool, &input, dir).unwrap();
            assert!(allowed(tool, &input, std::slice::from_ref(&r), dir), "{r}");
        }
    }

    #[test]
    fn send_file_of_a_file_outside_the_project_is_asked_whatever_the_bare_rules() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let dir = base.join("web");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.md"), "a").unwrap();
        std::fs::write(base.join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(base.join("secret"), dir.join("link")).unwrap();
        let bare = vec!["mcp__paddock__*".to_owned(), SEND_FILE.to_owned()];
        let call = |input: Value| allowed(SEND_FILE, &input, &bare, &dir);
        assert!(call(json!({"file_path": "a.md"})));
        assert!(call(json!({"path": "a.md"})), "the alias");
        assert!(
            call(json!({"content": "x", "file_path": "/etc/passwd"})),
            "inline"
        );
        for outside in ["/etc/passwd", "../secret", "link"] {
            assert!(!call(json!({"file_path": outside})), "{outside}");
        }
        // "Always" allows the folder, and a scoped rule covers what it names.
        let input = json!({"file_path": base.join("secret")});
        let rule = always_rule(SEND_FILE, &input, &dir).unwrap();
        assert_eq!(
            rule,
            format!("{SEND_FILE}({}/**)", base.display()),
            "the file's folder"
        );
        assert!(allowed(SEND_FILE, &input, &[rule], &dir));
    }
}
