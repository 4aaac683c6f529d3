//! A Bash command as the permission rules judge it: the simple commands it runs (split at
//! `&&`, `||`, `;`, `|`, `|&`, `&` and newlines), each with its words (quotes removed) and the
//! files it redirects to or from.
//!
//! What cannot be judged before it runs is refused as a whole ([`Unjudged`]): a command or
//! process substitution (`$(…)`, backticks, `<(…)`), a subshell or group (`( … )`, `{ … }`),
//! a here-document, a shell keyword (`if`, `for`, `while`, …: the parts between its
//! separators are not commands of their own), an unterminated quote. Such a command matches
//! no scoped `Bash(...)` rule, and "always" cannot cover it.
//!
//! `$VAR` and `~` are kept as written in a word: what they expand to is only known when the
//! command runs, so a word holding one is judged as naming a path anywhere
//! ([`super::place`]).

use std::fmt;

/// One simple command of a Bash command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Simple {
    /// Its words, quotes and backslashes removed (`$` and `~` kept).
    pub words: Vec<String>,
    /// The files it redirects to (`> f`, `>> f`, `&> f`) or from (`< f`).
    pub redirects: Vec<Redirect>,
}

/// A redirection to or from a file (not one between descriptors, `2>&1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file as written, quotes removed.
    pub target: String,
    /// Whether it is written (`>`, `>>`, `>|`, `&>`, `<>`) rather than only read (`<`).
    pub writes: bool,
}

/// Why a command cannot be judged before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unjudged {
    Substitution,
    Subshell,
    HereDoc,
    Keyword(String),
    Unterminated,
    MissingTarget,
    Empty,
}

impl fmt::Display for Unjudged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Substitution => f.write_str("it runs a command substitution ($(…), `…` or <(…))"),
            Self::Subshell => f.write_str("it runs a subshell or a group ( … ) / { … }"),
            Self::HereDoc => f.write_str("it has a here-document (<<)"),
            Self::Keyword(k) => write!(f, "it uses the shell keyword {k:?}"),
            Self::Unterminated => f.write_str("it has an unterminated quote"),
            Self::MissingTarget => f.write_str("it has a redirection without a file"),
            Self::Empty => f.write_str("it has no command"),
        }
    }
}

/// Words that start a compound command or change what follows: the parts between separators
/// are then not commands of their own.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "time", "coproc", "!", "[[", "]]", "{", "}",
];

/// The simple commands of `command`, or why it cannot be judged.
pub fn parse(command: &str) -> Result<Vec<Simple>, Unjudged> {
    let mut p = Parser {
        chars: command.chars().collect(),
        at: 0,
        parts: Vec::new(),
        part: Simple::default(),
    };
    p.run()?;
    if p.parts.is_empty() {
        return Err(Unjudged::Empty);
    }
    Ok(p.parts)
}

/// A word of `command` quoted so that [`parse`] reads it back as it is: as it is when that
/// needs nothing, else in single quotes.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ',' | ':' | '=' | '+' | '@' | '%')
        });
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    parts: Vec<Simple>,
    part: Simple,
}

impl Parser {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn run(&mut self) -> Result<(), Unjudged> {
        loop {
            self.skip_blanks();
            let Some(c) = self.peek(0) else {
                self.end_part()?;
                return Ok(());
            };
            match c {
                '\n' | '\r' | ';' => {
                    self.at += 1;
                    self.end_part()?;
                }
                '&' if self.peek(1) == Some('>') => {
                    // `&>` / `&>>`: both streams to a file.
                    self.at += if self.peek(2) == Some('>') { 3 } else { 2 };
                    self.redirect_target(true)?;
                }
                '&' | '|' => {
                    self.at += 1;
                    if matches!(self.peek(0), Some('&' | '|')) {
                        self.at += 1;
                    }
                    self.end_part()?;
                }
                '(' | ')' => return Err(Unjudged::Subshell),
                '#' => {
                    // A comment, to the end of the line.
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                '<' | '>' => self.redirect(None)?,
                _ => {
                    let (word, bare) = self.word()?;
                    // `2>` and the like: a descriptor, not a word.
                    if bare
                        && !word.is_empty()
                        && word.chars().all(|c| c.is_ascii_digit())
                        && matches!(self.peek(0), Some('<' | '>'))
                    {
                        self.redirect(Some(word))?;
                        continue;
                    }
                    if self.part.words.is_empty() && bare && KEYWORDS.contains(&word.as_str()) {
                        return Err(Unjudged::Keyword(word));
                    }
                    self.part.words.push(word);
                }
            }
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.at += 1;
        }
        // A backslash before a newline joins the lines.
        if self.peek(0) == Some('\\') && self.peek(1) == Some('\n') {
            self.at += 2;
            self.skip_blanks();
        }
    }

    fn end_part(&mut self) -> Result<(), Unjudged> {
        let part = std::mem::take(&mut self.part);
        if part.words.is_empty() && !part.redirects.is_empty() {
            // `> file` alone truncates a file: a write with no command to allow it.
            self.parts.push(part);
        } else if !part.words.is_empty() {
            self.parts.push(part);
        }
        Ok(())
    }

    /// At `<` or `>` (after a descriptor, if any).
    fn redirect(&mut self, _fd: Option<String>) -> Result<(), Unjudged> {
        let first = self.peek(0);
        let second = self.peek(1);
        match (first, second) {
            (Some('<'), Some('<')) => {
                if self.peek(2) == Some('<') {
                    // A here-string: the next word is text, not a file.
                    self.at += 3;
                    self.skip_blanks();
                    let (word, _) = self.word()?;
                    if word.is_empty() {
                        return Err(Unjudged::MissingTarget);
                    }
                    return Ok(());
                }
                Err(Unjudged::HereDoc)
            }
            (Some('<' | '>'), Some('(')) => Err(Unjudged::Substitution),
            (Some(dir), Some('&')) => {
                // `>&2`, `<&0`, `>&-`: between descriptors; `>& file`: both streams to it.
                self.at += 2;
                self.skip_blanks();
                let (word, _) = self.word()?;
                if word.is_empty() {
                    return Err(Unjudged::MissingTarget);
                }
                if word == "-" || word.chars().all(|c| c.is_ascii_digit()) {
                    return Ok(());
                }
                self.part.redirects.push(Redirect {
                    target: word,
                    writes: dir == '>',
                });
                Ok(())
            }
            (Some('>'), Some('>' | '|')) => {
                self.at += 2;
                self.redirect_target(true)
            }
            (Some('<'), Some('>')) => {
                self.at += 2;
                self.redirect_target(true)
            }
            (Some(dir), _) => {
                self.at += 1;
                self.redirect_target(dir == '>')
            }
            (None, _) => Ok(()),
        }
    }

    fn redirect_target(&mut self, writes: bool) -> Result<(), Unjudged> {
        self.skip_blanks();
        let (target, _) = self.word()?;
        if target.is_empty() {
            return Err(Unjudged::MissingTarget);
        }
        self.part.redirects.push(Redirect { target, writes });
        Ok(())
    }

    /// One word, quotes removed; whether it had no quote or backslash in it.
    fn word(&mut self) -> Result<(String, bool), Unjudged> {
        let mut word = String::new();
        let mut bare = true;
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\n' | '\r' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
                '`' => return Err(Unjudged::Substitution),
                '$' if self.peek(1) == Some('(') => return Err(Unjudged::Substitution),
                '\'' => {
                    bare = false;
                    self.at += 1;
                    loop {
                        match self.peek(0) {
                            None => return Err(Unjudged::Unterminated),
                            Some('\'') => break,
                            Some(c) => word.push(c),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                }
                '"' => {
                    bare = false;
                    self.at += 1;
                    loop {
                        match self.peek(0) {
                            None => return Err(Unjudged::Unterminated),
                            Some('"') => break,
                            Some('`') => return Err(Unjudged::Substitution),
                            Some('$') if self.peek(1) == Some('(') => {
                                return Err(Unjudged::Substitution);
                            }
                            Some('\\')
                                if matches!(self.peek(1), Some('"' | '\\' | '$' | '`' | '\n')) =>
                            {
                                self.at += 1;
                                if let Some(c) = self.peek(0).filter(|c| *c != '\n') {
                                    word.push(c);
                                }
                            }
                            Some(c) => word.push(c),
                        }
                        self.at += 1;
                    }
                    self.at += 1;
                }
                '\\' => {
                    bare = false;
                    self.at += 1;
                    match self.peek(0) {
                        None => return Err(Unjudged::Unterminated),
                        Some('\n') => {}
                        Some(c) => word.push(c),
                    }
                    self.at += 1;
                }
                _ => {
                    word.push(c);
                    self.at += 1;
                }
            }
        }
        Ok((word, bare))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn words(command: &str) -> Vec<Vec<String>> {
        parse(command)
            .unwrap()
            .into_iter()
            .map(|p| p.words)
            .collect()
    }

    fn w(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter()
            .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
            .collect()
    }

    #[test]
    fn a_chained_command_is_its_simple_commands() {
        assert_eq!(
            words("mkdir -p build && echo made > build/out.txt"),
            w(&[&["mkdir", "-p", "build"], &["echo", "made"]])
        );
        assert_eq!(
            words("a; b || c | d |& e & f\ng"),
            w(&[&["a"], &["b"], &["c"], &["d"], &["e"], &["f"], &["g"]])
        );
        assert_eq!(words("  ls   -la  "), w(&[&["ls", "-la"]]));
        assert_eq!(words("ls # a comment; rm -rf /"), w(&[&["ls"]]));
    }

    #[test]
    fn quotes_and_backslashes_are_removed() {
        assert_eq!(
            words(r#"git commit -m "fix && test" 'a b' c\ d "q\"x""#),
            w(&[&["git", "commit", "-m", "fix && test", "a b", "c d", "q\"x"]])
        );
        assert_eq!(words("echo $HOME ~/x"), w(&[&["echo", "$HOME", "~/x"]]));
    }

    #[test]
    fn redirections_name_their_files() {
        let parts = parse("echo a > out.txt 2>&1 >>log < in 2> err &> both >& also").unwrap();
        let r: Vec<(&str, bool)> = parts[0]
            .redirects
            .iter()
            .map(|r| (r.target.as_str(), r.writes))
            .collect();
        assert_eq!(
            r,
            vec![
                ("out.txt", true),
                ("log", true),
                ("in", false),
                ("err", true),
                ("both", true),
                ("also", true)
            ]
        );
        assert_eq!(parts[0].words, vec!["echo", "a"]);
        assert_eq!(
            parse("cat <<< 'text' ").unwrap()[0].redirects,
            vec![],
            "a here-string is no file"
        );
        let alone = parse("> truncated").unwrap();
        assert!(alone[0].words.is_empty());
        assert_eq!(alone[0].redirects[0].target, "truncated");
    }

    #[test]
    fn what_cannot_be_judged_is_refused() {
        for (command, why) in [
            ("echo $(rm -rf /)", Unjudged::Substitution),
            ("echo \"$(id)\"", Unjudged::Substitution),
            ("echo `id`", Unjudged::Substitution),
            ("diff <(ls a) b", Unjudged::Substitution),
            ("(cd /; rm x)", Unjudged::Subshell),
            ("cat <<EOF\nx\nEOF", Unjudged::HereDoc),
            (
                "for f in *; do rm $f; done",
                Unjudged::Keyword("for".into()),
            ),
            ("ls && { rm x; }", Unjudged::Keyword("{".into())),
            ("echo 'open", Unjudged::Unterminated),
            ("echo a >", Unjudged::MissingTarget),
            ("  ;; ", Unjudged::Empty),
        ] {
            assert_eq!(parse(command), Err(why), "{command}");
        }
    }

    #[test]
    fn a_quoted_word_reads_back_as_itself() {
        for word in ["plain", "a b", "it's", "$HOME", "a;b", "*.rs", "", "x)"] {
            let quoted = quote(word);
            assert_eq!(
                words(&format!("echo {quoted}")),
                w(&[&["echo", word]]),
                "{quoted}"
            );
        }
    }
}
