//! What "always" in the inbox adds: the rules that make this call allowed next time, and
//! nothing wider; or why no rule can, said before the key is pressed.
//!
//! - Bash, part by part (`command.rs`): for each simple command the rules do not allow yet,
//!   its first word (its first two for a tool whose second word picks what it does: `git
//!   commit`, `npm run`; [`super::TWO_WORD`]) as a prefix rule, or the command exactly when
//!   another of its words names a path outside the project (`cat ~/src/x` adds
//!   `Bash(cat ~/src/x)`, never `Bash(cat:*)`, which would read any file); for each file it
//!   redirects to that no rule allows, a `Write(...)` rule as below;
//! - a file tool: inside the project, the real file's folder and below (`Edit(src/**)`,
//!   `Edit(**)` at the top); outside it, that one file (`Read(/home/ana/src/secret.txt)`, never
//!   its folder, which may hold every sibling project);
//! - a search (`Glob`, `Grep`): the folder searched (below it, inside the project);
//! - `WebFetch`: the URL's host; any other tool: its bare name (it has no input to scope).

use std::path::Path;

use serde_json::Value;

use super::command::{self, Simple};
use super::place::{self, Place};
use super::{
    FILE_TOOLS, SEARCH_TOOLS, SEND_FILE, TWO_WORD, bash_rule_allows, redirect_allowed, url_host,
};
use crate::confine::Private;

/// What "always" would add for a call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Always {
    /// The rules, in the order they are added; each is written to the project exactly so.
    pub rules: Vec<String>,
    /// Why no rule can cover the call (then `rules` is empty and "always" allows it once).
    pub why_not: Option<String>,
}

impl Always {
    fn rules(rules: Vec<String>) -> Self {
        Self {
            rules,
            why_not: None,
        }
    }

    fn none(why: impl Into<String>) -> Self {
        Self {
            rules: Vec::new(),
            why_not: Some(why.into()),
        }
    }
}

/// What "always" adds for a call of `tool` with `input`, given the rules that already apply
/// (`current`), in a project whose agents run in `project_dir`.
pub fn always(tool: &str, input: &Value, current: &[String], project_dir: &Path) -> Always {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    if tool == "Bash" {
        let Some(command) = s("command").filter(|c| !c.trim().is_empty()) else {
            return Always::none(
                "the call has no command; allowing all of Bash would allow every command",
            );
        };
        return bash(command, current, project_dir);
    }
    if tool == "WebFetch" {
        return match s("url").and_then(url_host) {
            Some(host) => Always::rules(vec![format!("WebFetch(domain:{host})")]),
            None => Always::none("the call has no URL with a host to scope a rule to"),
        };
    }
    let is_file = FILE_TOOLS.iter().any(|(t, _)| *t == tool) || tool == SEND_FILE;
    if !is_file && !SEARCH_TOOLS.contains(&tool) {
        return Always::rules(vec![tool.to_owned()]);
    }
    let Some(raw) = super::call_raw(tool, input) else {
        return Always::none("the call names no file to scope a rule to");
    };
    let place = place::locate(&Private::default(), project_dir, raw);
    match path_rule(tool, &place, is_file) {
        Ok(rule) => Always::rules(vec![rule]),
        Err(why) => Always::none(why),
    }
}

/// The rule for a file tool's (or a search's) path: inside the project its real folder and
/// below, outside it the one file (or folder searched).
fn path_rule(tool: &str, place: &Place, is_file: bool) -> Result<String, String> {
    let named = match place {
        Place::Inside { real, .. } => {
            if is_file {
                real.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned()
            } else {
                real.clone()
            }
        }
        Place::Outside(path) => path.to_string_lossy().into_owned(),
        Place::Private(why) => return Err(format!("it names paddockd's own state ({why})")),
        Place::Unknown(why) => {
            return Err(format!(
                "where its path leads cannot be told before it runs ({why})"
            ));
        }
    };
    if named.contains(['*', '?', '[', '(', ')']) {
        return Err(format!(
            "its path has a character a rule would read as a pattern ({named})"
        ));
    }
    let pattern = match place {
        Place::Inside { .. } if named.is_empty() => "**".to_owned(),
        Place::Inside { .. } => format!("{named}/**"),
        _ => named,
    };
    Ok(format!("{tool}({pattern})"))
}

/// The rules for a Bash command line, part by part.
fn bash(command: &str, current: &[String], project_dir: &Path) -> Always {
    let parts = match command::parse(command) {
        Ok(parts) => parts,
        Err(why) => {
            return Always::none(format!(
                "paddock cannot judge this command before it runs: {why}"
            ));
        }
    };
    let mut rules: Vec<String> = Vec::new();
    let add = |rule: String, rules: &mut Vec<String>| {
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    };
    for part in &parts {
        if !part.words.is_empty() && !part_allowed(part, current, project_dir) {
            match command_rule(part, project_dir) {
                Ok(rule) => add(rule, &mut rules),
                Err(why) => return Always::none(why),
            }
        }
        for r in &part.redirects {
            if redirect_allowed(r, current, project_dir) {
                continue;
            }
            let place = place::locate(&Private::default(), project_dir, &r.target);
            let tool = if r.writes { "Write" } else { "Read" };
            match path_rule(tool, &place, true) {
                Ok(rule) => add(rule, &mut rules),
                Err(why) => {
                    return Always::none(format!("it redirects to {}: {why}", r.target));
                }
            }
        }
    }
    Always::rules(rules)
}

/// Whether the rules already allow a simple command's words (its redirections aside).
fn part_allowed(part: &Simple, current: &[String], project_dir: &Path) -> bool {
    current
        .iter()
        .any(|rule| rule.trim() == "Bash" || bash_rule_allows(rule, &part.words, project_dir))
}

/// The rule for one simple command: its first word (or two) as a prefix, or the command
/// exactly when another of its words names a path outside the project.
fn command_rule(part: &Simple, project_dir: &Path) -> Result<String, String> {
    let words = &part.words;
    let first = words.first().map(String::as_str).unwrap_or_default();
    if first.contains('=') && !first.starts_with(['-', '/', '.']) {
        return Err(format!(
            "it sets a variable for the command ({first}); allowing it once is all paddock can do"
        ));
    }
    let exact = || {
        let quoted: Vec<String> = words.iter().map(|w| command::quote(w)).collect();
        format!("Bash({})", quoted.join(" "))
    };
    let prefix_len = match words.get(1) {
        Some(second)
            if TWO_WORD.contains(&first)
                && !second.starts_with('-')
                && second
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_:.".contains(c)) =>
        {
            2
        }
        _ => 1,
    };
    let plain = |w: &str| command::quote(w) == w && !w.contains(':');
    if !words[..prefix_len].iter().all(|w| plain(w)) {
        return Ok(exact());
    }
    let outside = place::words_outside(&Private::default(), project_dir, &words[prefix_len..]);
    if outside.is_empty() {
        Ok(format!("Bash({}:*)", words[..prefix_len].join(" ")))
    } else {
        Ok(exact())
    }
}
