//! A command a project's settings name (`worktree_setup`), run without a shell: a line split
//! into words, or the words themselves.

use serde::{Deserialize, Serialize};

/// A command and its arguments, run without a shell: a line split into words at blanks
/// (`"npm ci"`; quotes keep a word whole: `"make 'build all'"`), or the words themselves
/// (`["npm", "ci"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CommandLine {
    Words(Vec<String>),
    Line(String),
}

impl CommandLine {
    /// The program and its arguments; an error says what is wrong with the line.
    pub fn argv(&self) -> Result<Vec<String>, String> {
        let words = match self {
            CommandLine::Words(w) => w.clone(),
            CommandLine::Line(line) => split_words(line)?,
        };
        if words.first().is_none_or(|w| w.is_empty()) {
            return Err("the command is empty".into());
        }
        Ok(words)
    }

    /// As a person would type it.
    pub fn shown(&self) -> String {
        match self {
            CommandLine::Words(w) => w.join(" "),
            CommandLine::Line(l) => l.clone(),
        }
    }
}

/// `line` split at blanks, single or double quotes keeping a word whole (no escapes, no
/// expansions: nothing a shell would do).
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => words.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(q) = quote {
        return Err(format!("a {q} quote is not closed"));
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_line_is_split_into_words_without_a_shell() {
        let line = |l: &str| CommandLine::Line(l.into()).argv();
        assert_eq!(line("npm ci").unwrap(), ["npm", "ci"]);
        assert_eq!(
            line("make 'build all' \"x y\"z").unwrap(),
            ["make", "build all", "x yz"]
        );
        assert_eq!(line("echo $HOME; rm").unwrap(), ["echo", "$HOME;", "rm"]);
        assert_eq!(line("a ''").unwrap(), ["a", ""]);
        assert!(line("  ").unwrap_err().contains("empty"));
        assert!(line("say 'hi").unwrap_err().contains("not closed"));
        let words = CommandLine::Words(vec!["npm".into(), "run build".into()]);
        assert_eq!(words.argv().unwrap(), ["npm", "run build"]);
        assert_eq!(words.shown(), "npm run build");
    }
}
