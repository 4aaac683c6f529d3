//! The CLI's `can_use_tool` requests against the project's permission settings: a call that
//! matches a rule of `allowed_tools` runs at once; anything else goes to the approvals inbox
//! (`approvals.rs`), whose answer (or timeout) is written back with [`answer`].
//!
//! A rule is written like Claude Code's own permission rules:
//!
//! - `Tool`: every call of that tool (`Read`, `mcp__github__get_issue`);
//! - `prefix*`: every tool whose name starts with `prefix` (`mcp__paddock__*`);
//! - `Bash(CMD:*)`: a simple command whose first words are CMD's (`Bash(mkdir:*)` allows
//!   `mkdir -p x`, `Bash(git commit:*)` allows `git commit -m m`) and whose other words name
//!   nothing outside the project (`Bash(cat:*)` does not allow `cat ~/.ssh/id_rsa`);
//!   `Bash(CMD)`: that command exactly. A command line is judged part by part
//!   ([`bash_allowed`], `command.rs`): `mkdir x && echo y > out/z` needs each simple command
//!   allowed and its redirection's file allowed as a write (`Write(out/**)`); one with a
//!   substitution, a subshell, a here-document or a shell keyword matches no `Bash(...)` rule;
//! - `Edit(PATTERN)`, `Write(...)`, `MultiEdit(...)`, `NotebookEdit(...)`, `Read(...)`,
//!   `Glob(...)`, `Grep(...)`: a call whose file (or, for Glob and Grep, the directory searched;
//!   the project's directory when none is given) matches the glob PATTERN. A PATTERN starting
//!   with `/` is absolute; any other is relative to the project's directory. `**` matches any
//!   number of path segments (none too), `*` any characters within one, `?` one character; a
//!   pattern naming a directory covers what is below it, and one without `/` a file name at any
//!   depth (the hooks' globs, `glob.rs`): `Edit(src/**)` allows editing anything under
//!   `<project>/src`, `Write(/tmp/out/**)` anything under `/tmp/out`;
//! - `WebFetch(domain:HOST)`: a fetch of a URL on HOST;
//! - `mcp__paddock__send_file(PATTERN)`: a `send_file` of a real file matching PATTERN, as for
//!   `Read(...)`. A rule without a scope covers `send_file` only inside the project ([`SEND_FILE`]).
//!
//! Every path is judged by where it really leads (`place.rs`): symlinks followed and `..`
//! resolved, so `out/x` through a link `out -> /elsewhere` is `/elsewhere/x`, outside the
//! project, and matches no relative rule; a symlink to nothing, a `$VAR` or a `~` leads
//! anywhere and matches no scoped rule. The inbox shows that real path (`approvals.rs`).
//!
//! "Always" in the inbox adds what makes the call allowed next time and nothing wider
//! (`always.rs`).

mod always;
mod command;
mod place;

use std::path::Path;

use serde_json::{Value, json};

use crate::confine::Private;
pub use always::{Always, always};
pub use place::Place;

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
    tool == SEND_FILE
        && send_file_path(input)
            .is_some_and(|raw| !place::locate(&Private::default(), project_dir, raw).inside())
}

/// Tools that search a directory (`path`, the project's directory when absent).
const SEARCH_TOOLS: &[&str] = &["Glob", "Grep"];

/// Whether a call of `tool` with `input`, in a project whose agents run in `project_dir`, is
/// allowed by the rules: a bare rule naming the tool; for Bash, every simple command of it
/// allowed by a `Bash(...)` rule and every file it redirects to by a file rule
/// ([`bash_allowed`]); for a tool that names a path, a rule whose pattern matches where the
/// path really leads.
pub fn allowed(tool: &str, input: &Value, rules: &[String], project_dir: &Path) -> bool {
    if rules
        .iter()
        .any(|rule| bare_allows(rule, tool, input, project_dir))
    {
        return true;
    }
    if tool == "Bash" {
        return input
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| bash_allowed(c, rules, project_dir));
    }
    rules
        .iter()
        .any(|rule| scoped_allows(rule, tool, input, project_dir))
}

/// Whether a bare rule (`Tool`, `prefix*`) allows the call.
fn bare_allows(rule: &str, tool: &str, input: &Value, project_dir: &Path) -> bool {
    let rule = rule.trim();
    if scoped(rule).is_some() {
        return false;
    }
    let named = match rule.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix),
        None => rule == tool,
    };
    named && !sends_from_outside(tool, input, project_dir)
}

/// Whether a scoped rule (`Tool(scope)`) of a tool other than Bash allows the call.
fn scoped_allows(rule: &str, tool: &str, input: &Value, project_dir: &Path) -> bool {
    let Some((name, scope)) = scoped(rule.trim()) else {
        return false;
    };
    if name != tool || tool == "Bash" {
        return false;
    }
    if tool == "WebFetch" {
        return match scope.strip_prefix("domain:") {
            Some(host) => input
                .get("url")
                .and_then(Value::as_str)
                .and_then(url_host)
                .is_some_and(|h| h.eq_ignore_ascii_case(host)),
            None => false,
        };
    }
    call_place(tool, input, project_dir)
        .is_some_and(|place| path_matches(scope, &place, project_dir))
}

/// Whether a `Bash` command is allowed by the `Bash(...)` rules, part by part, as Claude Code
/// judges it: a command that cannot be judged before it runs (`command.rs`) by none; else
/// every simple command allowed by one rule, and every file it redirects to (but `/dev/null`)
/// by a `Write(...)` or `Edit(...)` rule (`Read(...)` for `< file`). A prefix rule
/// (`Bash(cat:*)`) allows a command only when its other words name nothing outside the
/// project: `cat ~/.ssh/id_rsa` is asked.
pub fn bash_allowed(command: &str, rules: &[String], project_dir: &Path) -> bool {
    let Ok(parts) = command::parse(command) else {
        return false;
    };
    parts.iter().all(|part| {
        part.redirects
            .iter()
            .all(|r| redirect_allowed(r, rules, project_dir))
            && (part.words.is_empty()
                || rules
                    .iter()
                    .any(|rule| bash_rule_allows(rule, &part.words, project_dir)))
    })
}

/// Whether one `Bash(...)` rule allows a simple command's words.
pub(super) fn bash_rule_allows(rule: &str, words: &[String], project_dir: &Path) -> bool {
    let Some(("Bash", scope)) = scoped(rule.trim()) else {
        return false;
    };
    let (scope, prefix) = match scope.strip_suffix(":*") {
        Some(s) => (s, true),
        None => (scope, false),
    };
    let want = match command::parse(scope).as_deref() {
        Ok([one]) if one.redirects.is_empty() && !one.words.is_empty() => one.words.clone(),
        _ => return false,
    };
    if !prefix {
        return words == want.as_slice();
    }
    words.starts_with(&want)
        && place::words_outside(&Private::default(), project_dir, &words[want.len()..]).is_empty()
}

/// Whether a rule allows a redirection's file: `/dev/null` always; else a file rule for a
/// write (`Write`, `Edit`) or a read (`Read`) matching where the file really leads.
pub(super) fn redirect_allowed(
    r: &command::Redirect,
    rules: &[String],
    project_dir: &Path,
) -> bool {
    if place::harmless(&r.target) {
        return true;
    }
    let place = place::locate(&Private::default(), project_dir, &r.target);
    if matches!(place, Place::Private(_) | Place::Unknown(_)) {
        return false;
    }
    let tools: &[&str] = if r.writes {
        &["Write", "Edit"]
    } else {
        &["Read"]
    };
    rules.iter().any(|rule| {
        let rule = rule.trim();
        tools.iter().any(|tool| match scoped(rule) {
            Some((name, scope)) => name == *tool && path_matches(scope, &place, project_dir),
            None => rule == *tool,
        })
    })
}

/// Whether a rule's PATTERN matches where a path leads: a relative one against the real path
/// inside the project's directory (a path leading outside matches none), an absolute one
/// against the whole real path. The glob is the hooks' (`glob.rs`, gitignore-like: `**` any
/// number of segments, `*` and `?` within one, a pattern naming a directory covers what is
/// below it). paddockd's own state and a path that cannot be told match nothing.
fn path_matches(pattern: &str, place: &Place, project_dir: &Path) -> bool {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return false;
    }
    let absolute = pattern.starts_with('/');
    let candidates: Vec<String> = match place {
        Place::Inside { real, .. } if !absolute => vec![real.clone()],
        Place::Inside { real, .. } => {
            let roots = [
                Some(crate::confine::normalize(project_dir)),
                std::fs::canonicalize(project_dir).ok(),
            ];
            roots
                .into_iter()
                .flatten()
                .map(|root| root.join(real).to_string_lossy().into_owned())
                .collect()
        }
        Place::Outside(path) if absolute => vec![path.to_string_lossy().into_owned()],
        Place::Outside(_) | Place::Private(_) | Place::Unknown(_) => return false,
    };
    candidates.iter().any(|path| {
        let rel = path.trim_start_matches('/');
        if rel.is_empty() {
            // The project's directory itself (a search of all of it), or `/`.
            return pattern.trim_start_matches('/') == "**";
        }
        crate::glob::matches(pattern, rel)
    })
}

/// `Tool(scope)` split in two; `None` for a bare rule.
fn scoped(rule: &str) -> Option<(&str, &str)> {
    let inner = rule.strip_suffix(')')?;
    let (name, scope) = inner.split_once('(')?;
    (!name.is_empty()).then_some((name, scope))
}

/// The path a call of a path-scoped tool names, as given; `None` for a tool without one.
pub(super) fn call_raw<'a>(tool: &str, input: &'a Value) -> Option<&'a str> {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    if let Some((_, key)) = FILE_TOOLS.iter().find(|(t, _)| *t == tool) {
        s(key)
    } else if tool == SEND_FILE {
        send_file_path(input)
    } else if SEARCH_TOOLS.contains(&tool) {
        Some(s("path").unwrap_or("."))
    } else {
        None
    }
}

/// Where the file (or searched directory) of a call of a path-scoped tool really leads;
/// `None` for a tool without one.
fn call_place(tool: &str, input: &Value, project_dir: &Path) -> Option<Place> {
    call_raw(tool, input).map(|raw| place::locate(&Private::default(), project_dir, raw))
}

/// The path a call names, as a person should see it: where it really leads, marked when that
/// is outside the project (`/elsewhere/x (outside the project; named out/x)`); `None` for a
/// tool without one.
pub fn shown_path(tool: &str, input: &Value, project_dir: &Path) -> Option<String> {
    let raw = call_raw(tool, input)?;
    Some(place::locate(&Private::default(), project_dir, raw).shown(raw, project_dir))
}

/// A line for each path a command names (a word or a redirection) that does not stay inside
/// the project: `outside the project: /home/ana/.ssh/id_rsa (named ~/.ssh/id_rsa)`; at most
/// eight.
pub fn shown_outside(command: &str, project_dir: &Path) -> Vec<String> {
    let words = command_words(command);
    let mut lines: Vec<String> = Vec::new();
    for (raw, place) in place::words_outside(&Private::default(), project_dir, &words) {
        let line = format!("⚠ {}", place.shown(raw, project_dir));
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines.truncate(8);
    lines
}

/// Why a call is denied at once, whatever the rules and whoever would answer: its file (or
/// searched directory), or a word or redirection of its command, leads into paddockd's own
/// state (`confine.rs`). `None` for any other call.
pub fn never(tool: &str, input: &Value, project_dir: &Path, private: &Private) -> Option<String> {
    if tool == "Bash" {
        let command = input.get("command").and_then(Value::as_str)?;
        return command_words(command)
            .iter()
            .filter_map(|w| place::word_path(w))
            .find_map(|p| match place::locate(private, project_dir, p) {
                Place::Private(why) => Some(format!("Bash: {why}")),
                _ => None,
            });
    }
    match place::locate(private, project_dir, call_raw(tool, input)?) {
        Place::Private(why) => Some(format!("{tool}: {why}")),
        _ => None,
    }
}

/// Every word and redirected file of a command; for one that cannot be parsed, its pieces
/// between blanks, quotes and operators (what it might name).
fn command_words(command: &str) -> Vec<String> {
    match command::parse(command) {
        Ok(parts) => parts
            .into_iter()
            .flat_map(|p| {
                p.words
                    .into_iter()
                    .chain(p.redirects.into_iter().map(|r| r.target))
            })
            .collect(),
        Err(_) => command
            .split(|c: char| c.is_whitespace() || "'\"`;&|<>()=".contains(c))
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect(),
    }
}

/// The host of an `http(s)` URL, without user info or port.
pub(crate) fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split(':').next()?;
    (!host.is_empty()).then_some(host)
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
    use std::path::PathBuf;

    /// A project `web` in a scratch folder, beside `elsewhere/` and `src/` (a sibling project),
    /// with links `out -> ../elsewhere`, `lib -> src` (inside), `dangling -> ../nothing`.
    struct Fixture {
        _tmp: tempfile::TempDir,
        base: PathBuf,
        dir: PathBuf,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let dir = base.join("web");
        for d in ["web/src/app", "elsewhere", "sibling"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        std::fs::write(base.join("sibling/secret.txt"), "s").unwrap();
        std::fs::write(dir.join("README.md"), "r").unwrap();
        std::os::unix::fs::symlink(base.join("elsewhere"), dir.join("out")).unwrap();
        std::os::unix::fs::symlink("src", dir.join("lib")).unwrap();
        std::os::unix::fs::symlink(base.join("nothing"), dir.join("dangling")).unwrap();
        Fixture {
            _tmp: tmp,
            base,
            dir,
        }
    }

    impl Fixture {
        fn ok(&self, rules: &[&str], tool: &str, input: Value) -> bool {
            let rules: Vec<String> = rules.iter().map(|r| (*r).to_owned()).collect();
            allowed(tool, &input, &rules, &self.dir)
        }

        fn always(&self, rules: &[&str], tool: &str, input: &Value) -> Always {
            let rules: Vec<String> = rules.iter().map(|r| (*r).to_owned()).collect();
            always(tool, input, &rules, &self.dir)
        }
    }

    fn bash(command: &str) -> Value {
        json!({ "command": command })
    }

    fn file(path: &str) -> Value {
        json!({ "file_path": path })
    }

    #[test]
    fn bare_names_and_prefixes_allow_the_whole_tool() {
        let f = fixture();
        let p = ["Bash", "mcp__paddock__*"];
        assert!(f.ok(&p, "Bash", bash("rm -rf /")));
        assert!(!f.ok(&p, "BashX", Value::Null));
        assert!(f.ok(&p, "mcp__paddock__send_file", Value::Null));
        assert!(!f.ok(&p, "Edit", Value::Null));
        assert!(!f.ok(&[], "Edit", Value::Null));
    }

    #[test]
    fn a_command_prefix_rule_allows_that_command_and_nothing_chained_to_it() {
        let f = fixture();
        let rule = ["Bash(mkdir:*)"];
        assert!(f.ok(&rule, "Bash", bash("mkdir -p x")));
        assert!(f.ok(&rule, "Bash", bash("mkdir")));
        assert!(f.ok(&rule, "Bash", bash("  mkdir   a b")));
        assert!(!f.ok(&rule, "Bash", bash("rm -rf x")));
        assert!(
            !f.ok(&rule, "Bash", bash("mkdirx y")),
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
            "mkdir x > out.txt",
            "mkdir (x)",
        ] {
            assert!(!f.ok(&rule, "Bash", bash(chained)), "{chained}");
        }
        assert!(!f.ok(&rule, "Edit", bash("mkdir x")), "another tool");
        assert!(!f.ok(&rule, "Bash", json!({})), "no command");
        // Two words.
        let rule = ["Bash(git commit:*)"];
        assert!(f.ok(&rule, "Bash", bash("git commit -m msg")));
        assert!(
            f.ok(&rule, "Bash", bash("git commit -m 'a && b'")),
            "quoted"
        );
        assert!(!f.ok(&rule, "Bash", bash("git push --force")));
        // Exact.
        assert!(f.ok(&["Bash(npm test)"], "Bash", bash("npm  test")));
        assert!(!f.ok(&["Bash(npm test)"], "Bash", bash("npm test -- --watch")));
        assert!(
            !f.ok(&["Bash(:*)"], "Bash", bash("ls")),
            "an empty prefix allows nothing"
        );
    }

    #[test]
    fn a_compound_command_is_allowed_part_by_part() {
        let f = fixture();
        let call = bash("mkdir -p build && echo made > build/out.txt");
        assert!(!f.ok(&["Bash(mkdir:*)"], "Bash", call.clone()));
        assert!(!f.ok(&["Bash(mkdir:*)", "Bash(echo:*)"], "Bash", call.clone()));
        let all = ["Bash(mkdir:*)", "Bash(echo:*)", "Write(build/**)"];
        assert!(f.ok(&all, "Bash", call.clone()));
        assert!(f.ok(&["Bash(mkdir:*)", "Bash(echo:*)", "Edit(**)"], "Bash", call));
        assert!(f.ok(&all, "Bash", bash("echo x 2>&1 >/dev/null | mkdir y")));
        assert!(
            !f.ok(&all, "Bash", bash("echo x > out/pwned.txt")),
            "a redirection through a link leads outside"
        );
        assert!(!f.ok(&all, "Bash", bash("echo x > $HOME/.bashrc")));
        assert!(!f.ok(&all, "Bash", bash("for d in a; do mkdir $d; done")));
        assert!(f.ok(
            &["Bash(cat:*)", "Read(**)"],
            "Bash",
            bash("cat < README.md")
        ));
        assert!(!f.ok(&["Bash(cat:*)"], "Bash", bash("cat < README.md")));
    }

    #[test]
    fn a_prefix_rule_does_not_allow_a_command_naming_a_path_outside() {
        let f = fixture();
        let rule = ["Bash(cat:*)"];
        assert!(f.ok(&rule, "Bash", bash("cat README.md src/app/a.rs")));
        for outside in [
            "cat ~/.ssh/id_rsa",
            "cat /etc/passwd",
            "cat ../sibling/secret.txt",
            "cat out/anything",
            "cat $HOME/.aws/credentials",
            "cat dangling",
            "cat --file=/etc/shadow",
        ] {
            assert!(!f.ok(&rule, "Bash", bash(outside)), "{outside}");
        }
        // An exact rule names what it allows, paths and all.
        assert!(f.ok(&["Bash(cat /etc/hosts)"], "Bash", bash("cat /etc/hosts")));
        assert!(f.ok(&rule, "Bash", bash("cat README.md 2>/dev/null")));
    }

    #[test]
    fn a_path_rule_matches_where_the_path_really_leads() {
        let f = fixture();
        let d = f.dir.display();
        assert!(f.ok(&["Edit(src/**)"], "Edit", file(&format!("{d}/src/a.rs"))));
        assert!(
            f.ok(&["Edit(src/**)"], "Edit", file("src/deep/er/a.rs")),
            "relative to the project"
        );
        assert!(!f.ok(&["Edit(src/**)"], "Edit", file(&format!("{d}/docs/a.md"))));
        assert!(
            !f.ok(
                &["Edit(src/**)"],
                "Edit",
                file(&format!("{d}/src/../../.bashrc"))
            ),
            "dot-dots resolved"
        );
        assert!(!f.ok(&["Edit(src/**)"], "Write", file("src/a.rs")));
        // Finding 1: `Write(**)` and a link to elsewhere.
        assert!(f.ok(&["Write(**)"], "Write", file("README.md")));
        for tool in ["Write", "Edit", "Read"] {
            assert!(
                !f.ok(
                    &["Write(**)", "Edit(**)", "Read(**)"],
                    tool,
                    file("out/pwned.txt")
                ),
                "{tool}"
            );
            assert!(
                !f.ok(&["Read(*.txt)"], tool, file("out/pwned.txt")),
                "{tool}"
            );
        }
        assert!(!f.ok(
            &["Grep(**)"],
            "Grep",
            json!({"pattern": "x", "path": "out"})
        ));
        assert!(
            !f.ok(&["Write(**)"], "Write", file("dangling")),
            "a link to nothing"
        );
        // A link inside is judged by its target.
        assert!(f.ok(&["Edit(src/**)"], "Edit", file("lib/a.rs")));
        assert!(!f.ok(&["Edit(lib/**)"], "Edit", file("lib/a.rs")));
        // Absolute rules match the real path.
        let elsewhere = f.base.join("elsewhere");
        let abs = format!("Write({}/**)", elsewhere.display());
        assert!(f.ok(&[&abs], "Write", file("out/x/y.txt")));
        assert!(f.ok(
            &[&abs],
            "Write",
            file(&format!("{}/x.txt", elsewhere.display()))
        ));
        assert!(!f.ok(&[&abs], "Write", file("README.md")));
        assert!(f.ok(&["Edit(src/*.rs)"], "Edit", file("src/a.rs")));
        assert!(!f.ok(&["Edit(src/*.rs)"], "Edit", file("src/sub/a.rs")));
        assert!(
            f.ok(&["Edit(*.md)"], "Edit", file("docs/deep/a.md")),
            "a name at any depth"
        );
        assert!(
            !f.ok(&["Edit(*.md)"], "Edit", file("/elsewhere/a.md")),
            "but in the project"
        );
        assert!(!f.ok(&["Edit(src/**)"], "Edit", json!({})), "no file");
        assert!(f.ok(
            &["NotebookEdit(nb/**)"],
            "NotebookEdit",
            json!({"notebook_path": "nb/a.ipynb"})
        ));
        // Searches: the directory searched, the project's when none is given.
        assert!(f.ok(&["Grep(**)"], "Grep", json!({"pattern": "x"})));
        assert!(f.ok(
            &["Grep(src/**)"],
            "Grep",
            json!({"pattern": "x", "path": "src"})
        ));
        assert!(!f.ok(&["Grep(src/**)"], "Grep", json!({"pattern": "x"})));
    }

    #[test]
    fn a_domain_rule_allows_fetches_from_that_host() {
        let f = fixture();
        let url = |u: &str| json!({ "url": u });
        let rule = ["WebFetch(domain:docs.rs)"];
        assert!(f.ok(&rule, "WebFetch", url("https://docs.rs/serde")));
        assert!(f.ok(&rule, "WebFetch", url("https://u:p@DOCS.rs:443/x?y")));
        assert!(!f.ok(&rule, "WebFetch", url("https://docs.rs.evil.com/")));
        assert!(!f.ok(&["WebFetch(docs.rs)"], "WebFetch", url("https://docs.rs/")));
    }

    #[test]
    fn always_adds_what_allows_the_call_and_nothing_wider() {
        let f = fixture();
        let rules = |tool: &str, input: Value| f.always(&[], tool, &input).rules;
        let one = |r: &str| vec![r.to_owned()];
        assert_eq!(rules("Bash", bash("mkdir -p x")), one("Bash(mkdir:*)"));
        assert_eq!(
            rules("Bash", bash("git commit -m 'x'")),
            one("Bash(git commit:*)")
        );
        assert_eq!(rules("Bash", bash("npm run build")), one("Bash(npm run:*)"));
        assert_eq!(
            rules("Bash", bash("git --no-pager log")),
            one("Bash(git:*)")
        );
        // Finding 6: a chained command, part by part, its redirection as a write.
        assert_eq!(
            rules("Bash", bash("mkdir -p build && echo made > build/out.txt")),
            vec!["Bash(mkdir:*)", "Bash(echo:*)", "Write(build/**)"]
        );
        assert_eq!(
            f.always(
                &["Bash(mkdir:*)"],
                "Bash",
                &bash("mkdir -p build && echo made")
            )
            .rules,
            one("Bash(echo:*)"),
            "what is allowed already is not added again"
        );
        // A word naming a path outside: that command exactly, never its first word.
        assert_eq!(
            rules("Bash", bash("cat ~/.ssh/id_rsa")),
            one("Bash(cat '~/.ssh/id_rsa')")
        );
        assert_eq!(
            rules("Bash", bash("cat ../sibling/secret.txt")),
            one("Bash(cat ../sibling/secret.txt)")
        );
        let secret = f.base.join("sibling/secret.txt");
        assert_eq!(
            rules("Bash", bash(&format!("echo x > {}", secret.display()))),
            vec![
                "Bash(echo:*)".to_owned(),
                format!("Write({})", secret.display())
            ]
        );
        // Outside the project: the file, not its folder (which holds every sibling).
        assert_eq!(
            rules("Read", file(&secret.to_string_lossy())),
            vec![format!("Read({})", secret.display())]
        );
        assert_eq!(
            rules("Write", file("out/pwned.txt")),
            vec![format!("Write({}/elsewhere/pwned.txt)", f.base.display())]
        );
        // Inside: the real folder and below.
        assert_eq!(rules("Edit", file("src/app/a.ts")), one("Edit(src/app/**)"));
        assert_eq!(rules("Edit", file("lib/app/a.ts")), one("Edit(src/app/**)"));
        assert_eq!(rules("Write", file("README.md")), one("Write(**)"));
        assert_eq!(
            rules("Grep", json!({"pattern": "x", "path": "src"})),
            one("Grep(src/**)")
        );
        assert_eq!(
            rules("WebFetch", json!({"url": "https://docs.rs/x"})),
            one("WebFetch(domain:docs.rs)")
        );
        assert_eq!(
            rules("mcp__github__get_issue", json!({"n": 1})),
            one("mcp__github__get_issue")
        );
        // No rule can cover it: said why.
        for (tool, input) in [
            ("Bash", bash("   ")),
            ("Bash", json!({})),
            ("Bash", bash("kill $(cat pid)")),
            ("Bash", bash("cat <<EOF\nx\nEOF")),
            ("Bash", bash("FOO=1 make")),
            ("Bash", bash("echo x > $HOME/y")),
            ("Write", file("dangling")),
            ("Write", file("we*rd/a.rs")),
        ] {
            let a = f.always(&[], tool, &input);
            assert!(a.rules.is_empty(), "{input}: {:?}", a.rules);
            assert!(a.why_not.is_some(), "{input}");
        }
        // Each set of rules allows the call it was made from.
        for (tool, input) in [
            ("Bash", bash("mkdir -p x")),
            ("Bash", bash("mkdir -p build && echo made > build/out.txt")),
            ("Bash", bash("cat ~/.ssh/id_rsa")),
            ("Bash", bash("cat ../sibling/secret.txt | wc -l")),
            ("Bash", bash(&format!("echo x > {}", secret.display()))),
            ("Read", file(&secret.to_string_lossy())),
            ("Write", file("out/pwned.txt")),
            ("Edit", file("lib/app/a.ts")),
            ("Grep", json!({"pattern": "x"})),
        ] {
            let r = f.always(&[], tool, &input).rules;
            assert!(allowed(tool, &input, &r, &f.dir), "{input}: {r:?}");
        }
        // And no wider: the file's sibling, another file through the same command.
        let r = f
            .always(&[], "Read", &file(&secret.to_string_lossy()))
            .rules;
        let sibling = f.base.join("sibling/other.txt");
        assert!(!allowed(
            "Read",
            &file(&sibling.to_string_lossy()),
            &r,
            &f.dir
        ));
        let r = f
            .always(&[], "Bash", &bash("cat ../sibling/secret.txt"))
            .rules;
        assert!(!allowed(
            "Bash",
            &bash("cat ../sibling/other.txt"),
            &r,
            &f.dir
        ));
        assert!(!allowed("Bash", &bash("cat ~/.ssh/id_rsa"), &r, &f.dir));
    }

    #[test]
    fn send_file_of_a_file_outside_the_project_is_asked_whatever_the_bare_rules() {
        let f = fixture();
        std::fs::write(f.base.join("elsewhere/secret"), "s").unwrap();
        let bare = ["mcp__paddock__*", SEND_FILE];
        assert!(f.ok(&bare, SEND_FILE, json!({"file_path": "README.md"})));
        assert!(
            f.ok(&bare, SEND_FILE, json!({"path": "README.md"})),
            "the alias"
        );
        assert!(
            f.ok(
                &bare,
                SEND_FILE,
                json!({"content": "x", "file_path": "/etc/passwd"})
            ),
            "inline"
        );
        for outside in ["/etc/passwd", "../sibling/secret.txt", "out/secret"] {
            assert!(
                !f.ok(&bare, SEND_FILE, json!({"file_path": outside})),
                "{outside}"
            );
        }
        // "Always" allows that file, by its real path.
        let input = json!({"file_path": "out/secret"});
        let rules = f.always(&[], SEND_FILE, &input).rules;
        assert_eq!(
            rules,
            vec![format!(
                "{SEND_FILE}({}/elsewhere/secret)",
                f.base.display()
            )]
        );
        assert!(allowed(SEND_FILE, &input, &rules, &f.dir));
    }

    #[test]
    fn paddockds_own_state_is_denied_whatever_names_it() {
        let f = fixture();
        let state = f.base.join("elsewhere");
        let private = Private::new(vec![state.clone()], Vec::new());
        let never = |tool: &str, input: Value| never(tool, &input, &f.dir, &private);
        assert!(
            never("Read", file("out/tokens")).is_some(),
            "through a link"
        );
        assert!(never("Read", file(&state.join("x").to_string_lossy())).is_some());
        assert!(never("Bash", bash("cat out/tokens")).is_some());
        assert!(never("Bash", bash(&format!("cp x {}/y", state.display()))).is_some());
        assert!(
            never("Bash", bash("echo $(cat out/tokens)")).is_some(),
            "unparsed too"
        );
        assert!(
            never("Bash", bash("echo hi > out/x")).is_some(),
            "a redirection"
        );
        assert!(never("Read", file("README.md")).is_none());
        assert!(never("Bash", bash("cat README.md")).is_none());
    }
}
