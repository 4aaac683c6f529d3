//! A tool call's one-line summary: its name, its telling argument, and what it did.

use serde_json::Value;

use super::item::{ToolItem, ToolResult};
use crate::format::{one_line, tool_detail};

/// A tool call's one-line summary, in parts so the view can style and fit them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSummary {
    pub name: String,
    /// The telling argument (command, file path, pattern...), on one line; may be empty.
    pub arg: String,
    /// The argument is a path: cut it from the left when it does not fit.
    pub arg_is_path: bool,
    pub status: ToolStatus,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolStatus {
    Running,
    /// Finished; what it did in a few words (`exit 0`, `+3 -1`, `42 lines`), maybe empty.
    Done(String),
    /// Failed; why (`exit 1`, the first line of the error).
    Failed(String),
}

impl ToolSummary {
    /// The summary as plain text (`Bash cargo test · exit 1`).
    pub fn to_plain(&self) -> String {
        let mut s = self.name.clone();
        if !self.arg.is_empty() {
            s.push(' ');
            s.push_str(&self.arg);
        }
        match &self.status {
            ToolStatus::Running => s.push_str(" …"),
            ToolStatus::Done(what) if what.is_empty() => {}
            ToolStatus::Done(what) => {
                s.push_str(" · ");
                s.push_str(what);
            }
            ToolStatus::Failed(why) => {
                s.push_str(" · ✗ ");
                s.push_str(why);
            }
        }
        s
    }
}

impl ToolItem {
    /// Its output is longer than the pane shows of it expanded ([`super::OUTPUT_CAP`]).
    pub fn output_capped(&self) -> bool {
        self.result
            .as_ref()
            .is_some_and(|r| r.output.trim_end_matches('\n').lines().count() > super::OUTPUT_CAP)
    }

    pub fn summary(&self) -> ToolSummary {
        let name = if self.name.is_empty() {
            "tool".to_owned()
        } else {
            self.name.clone()
        };
        let arg = first_line(&tool_detail(&self.name, &self.input));
        let arg_is_path = matches!(
            self.name.as_str(),
            "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
        );
        let status = match &self.result {
            None => ToolStatus::Running,
            Some(result) => self.status(result),
        };
        ToolSummary {
            name,
            arg,
            arg_is_path,
            status,
        }
    }

    fn status(&self, result: &ToolResult) -> ToolStatus {
        let output = result.output.trim();
        if result.is_error {
            return self.failure(output);
        }
        let interrupted = result
            .detail
            .as_ref()
            .and_then(|d| d.get("interrupted"))
            .and_then(Value::as_bool)
            == Some(true);
        if self.name == "Bash" && interrupted {
            return ToolStatus::Failed("interrupted".to_owned());
        }
        ToolStatus::Done(self.what_it_did(result, output))
    }

    /// Why a failed call failed: a command's exit code, else the error's first line.
    fn failure(&self, output: &str) -> ToolStatus {
        if self.name == "Bash"
            && let Some(code) = exit_code(output)
        {
            return ToolStatus::Failed(format!("exit {code}"));
        }
        ToolStatus::Failed(if output.is_empty() {
            "failed".to_owned()
        } else {
            one_line(output, 80)
        })
    }

    /// What a call that went through did, in a few words (empty for most tools).
    fn what_it_did(&self, result: &ToolResult, output: &str) -> String {
        let input = &self.input;
        match self.name.as_str() {
            "Bash" => {
                if input.get("run_in_background").and_then(Value::as_bool) == Some(true) {
                    "in background".to_owned()
                } else {
                    "exit 0".to_owned()
                }
            }
            "Edit" => {
                let old = str_field(input, "old_string");
                let new = str_field(input, "new_string");
                format!("+{} -{}", count_lines(new), count_lines(old))
            }
            "MultiEdit" => {
                let (mut added, mut removed) = (0, 0);
                if let Some(edits) = input.get("edits").and_then(Value::as_array) {
                    for edit in edits {
                        added += count_lines(str_field(edit, "new_string"));
                        removed += count_lines(str_field(edit, "old_string"));
                    }
                }
                format!("+{added} -{removed}")
            }
            "Write" => lines_label(count_lines(str_field(input, "content"))),
            "Read" => {
                let from_detail = result
                    .detail
                    .as_ref()
                    .and_then(|d| d.pointer("/file/numLines"))
                    .and_then(Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok());
                lines_label(from_detail.unwrap_or_else(|| count_lines(output)))
            }
            "Grep" => {
                let first = output.lines().next().unwrap_or_default();
                if first.starts_with("Found ") || first.starts_with("No ") {
                    one_line(first, 60)
                } else {
                    lines_label(count_lines(output))
                }
            }
            "Glob" => {
                if output.is_empty() || output.starts_with("No files") {
                    "no files".to_owned()
                } else {
                    let n = count_lines(output);
                    format!("{n} {}", if n == 1 { "file" } else { "files" })
                }
            }
            _ => String::new(),
        }
    }
}

/// `Exit code N` at the start of a failed Bash result (`Error: ` may precede it).
pub(crate) fn exit_code(output: &str) -> Option<i64> {
    let rest = output.strip_prefix("Error: ").unwrap_or(output);
    let rest = rest.strip_prefix("Exit code ")?;
    let digits: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Lines of text, the way an editor counts them (a trailing newline does not add one).
pub(crate) fn count_lines(s: &str) -> usize {
    s.lines().count()
}

fn lines_label(n: usize) -> String {
    format!("{n} {}", if n == 1 { "line" } else { "lines" })
}

/// The first line of `s`, with `…` when there was more.
fn first_line(s: &str) -> String {
    let trimmed = s.trim();
    let mut lines = trimmed.lines();
    let first = lines.next().unwrap_or_default().trim_end().to_owned();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}
