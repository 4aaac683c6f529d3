//! The `SUMMARY.txt` of a capture folder: one line of message kinds per scenario, then the
//! request paths the stand-in saw, the first MCP server's traffic and the transcript records.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

/// One line's kind in the summary's notation, e.g. `system/init`, `assistant(text)[api_error]`,
/// `stream_event/content_block_start(text)`, `result/success is_error=False terminal_reason=completed`.
pub fn summary_kind(line: &Value) -> String {
    let ty = line["type"].as_str().unwrap_or("?");
    match ty {
        "stream_event" => {
            let event = &line["event"];
            let ev = event["type"].as_str().unwrap_or("?");
            if let Some(delta) = event["delta"]["type"].as_str()
                && ev == "content_block_delta"
            {
                return format!("stream_event/{delta}");
            }
            match event["content_block"]["type"].as_str() {
                Some(block) => format!("stream_event/{ev}({block})"),
                None => format!("stream_event/{ev}"),
            }
        }
        "assistant" | "user" => {
            let content = &line["message"]["content"];
            let blocks = match content {
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|b| b["type"].as_str())
                    .collect::<Vec<_>>()
                    .join(","),
                Value::String(_) => "text".to_owned(),
                _ => String::new(),
            };
            let mut kind = format!("{ty}({blocks})");
            if line["isReplay"] == true {
                kind.push_str("[replay]");
            }
            if line["is_api_error_message"] == true || line["error"].is_string() {
                kind.push_str("[api_error]");
            }
            kind
        }
        "result" => format!(
            "result/{} is_error={} terminal_reason={}",
            line["subtype"].as_str().unwrap_or("?"),
            python_value(&line["is_error"]),
            python_value(&line["terminal_reason"]),
        ),
        "control_request" => format!(
            "control_request/{}",
            line["request"]["subtype"].as_str().unwrap_or("?")
        ),
        "control_response" => format!(
            "control_response/{}",
            line["response"]["subtype"].as_str().unwrap_or("?")
        ),
        _ => match line["subtype"].as_str() {
            Some(sub) => format!("{ty}/{sub}"),
            None => ty.to_owned(),
        },
    }
}

/// `True`/`False`/`None`/the string, as the first captures were summarised.
fn python_value(v: &Value) -> String {
    match v {
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Null => "None".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `stdout:` line of one scenario: kinds joined by ` → `, runs written `kind×N`. Output
/// that is not JSON gives `TEXT:` and its first 80 characters.
pub fn stdout_line(stdout: &str) -> String {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return String::new();
    }
    let mut kinds: Vec<String> = Vec::new();
    for line in trimmed.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(v) if v.is_object() => kinds.push(summary_kind(&v)),
            _ => return format!("TEXT:{}", trimmed.chars().take(80).collect::<String>()),
        }
    }
    let mut runs: Vec<(String, usize)> = Vec::new();
    for kind in kinds {
        match runs.last_mut() {
            Some((last, n)) if *last == kind => *n += 1,
            _ => runs.push((kind, 1)),
        }
    }
    runs.iter()
        .map(|(k, n)| {
            if *n > 1 {
                format!("{k}×{n}")
            } else {
                k.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" → ")
}

/// What one scenario contributes to the summary.
pub struct ScenarioSummary {
    pub name: String,
    pub rc: i32,
    pub stdout: String,
    pub stderr: String,
    pub notes: Vec<String>,
}

impl ScenarioSummary {
    pub fn render(&self, out: &mut String) {
        let _ = writeln!(out, "## {}  exit={}", self.name, self.rc);
        let _ = writeln!(out, "  stdout: {}", stdout_line(&self.stdout));
        if self.rc != 0
            && let Some(first) = self.stderr.lines().map(str::trim).find(|l| !l.is_empty())
        {
            let _ = writeln!(
                out,
                "  stderr: {}",
                first.chars().take(160).collect::<String>()
            );
        }
        for note in &self.notes {
            let _ = writeln!(out, "  {note}");
        }
        out.push('\n');
    }
}

/// `# Mock request paths`: `method path` → count, most frequent first.
pub fn render_requests(out: &mut String, counts: &BTreeMap<String, usize>) {
    let _ = writeln!(out, "# Mock request paths (method path -> count)");
    let mut rows: Vec<(&String, &usize)> = counts.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (path, n) in rows {
        let _ = writeln!(out, "  {n:>5}  {path}");
    }
    out.push('\n');
}

/// `# MCP echo server log`: the lines of the first server process (`FAKE_MCP_LOG` format).
pub fn render_mcp_log(out: &mut String, log: &str) {
    let _ = writeln!(out, "# MCP echo server log (first process)");
    let mut first_pid = None;
    for line in log.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if *first_pid.get_or_insert_with(|| v["pid"].clone()) != v["pid"] {
            continue;
        }
        let msg: String = v["msg"].to_string().chars().take(300).collect();
        let _ = writeln!(out, "  {:<5} {msg}", v["dir"].as_str().unwrap_or("?"));
    }
    out.push('\n');
}

/// `# Transcripts`: per project folder, its `.jsonl` files and the record kinds in them
/// (`type`, `attachment:<type>`, `system:<subtype>`).
pub fn render_transcripts(out: &mut String, projects: &Path) -> std::io::Result<()> {
    let _ = writeln!(
        out,
        "# Transcripts (per projects/<dir>: files, and record kinds over all of them)"
    );
    let mut dirs: Vec<_> = std::fs::read_dir(projects)?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<String> = std::fs::read_dir(&dir)?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".jsonl"))
            .collect();
        files.sort();
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for file in &files {
            let text = std::fs::read_to_string(dir.join(file))?;
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let ty = v["type"].as_str().unwrap_or("?");
                let kind = match ty {
                    "attachment" => {
                        format!(
                            "attachment:{}",
                            v["attachment"]["type"].as_str().unwrap_or("?")
                        )
                    }
                    "system" => format!("system:{}", v["subtype"].as_str().unwrap_or("?")),
                    _ => ty.to_owned(),
                };
                *kinds.entry(kind).or_default() += 1;
            }
        }
        let shown: Vec<&str> = files.iter().take(3).map(String::as_str).collect();
        let more = if files.len() > 3 { " …" } else { "" };
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {name}/  ({} jsonl files: {}{more})",
            files.len(),
            shown.join(", ")
        );
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k}×{n}")).collect();
        let _ = writeln!(out, "     {}", kinds.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn summarises_like_the_first_captures() {
        let stdout = [
            r#"{"type":"system","subtype":"init"}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text"}}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"b"}}}"#,
            r#"{"type":"user","message":{"content":"hi"},"isReplay":true}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"terminal_reason":null}"#,
        ]
        .join("\n");
        assert_eq!(
            stdout_line(&stdout),
            "system/init → stream_event/content_block_start(text) → stream_event/text_delta×2 \
             → user(text)[replay] → result/success is_error=False terminal_reason=None"
        );
        assert_eq!(stdout_line("echo: hello text\n"), "TEXT:echo: hello text");
        assert_eq!(stdout_line(""), "");
    }

    /// Every committed capture folder's SUMMARY.txt says what its stdout files hold, in this
    /// module's notation (the first set's summary was written by other tooling).
    #[test]
    fn the_committed_summaries_match_their_stdout_files() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        for release in ["claude-cli-2.1.332", "claude-cli-2.1.197"] {
            let dir = fixtures.join(release);
            let summary = std::fs::read_to_string(dir.join("SUMMARY.txt")).unwrap_or_default();
            let mut checked = 0;
            let mut lines = summary.lines();
            while let Some(line) = lines.next() {
                let Some(head) = line.strip_prefix("## ") else {
                    continue;
                };
                let (name, exit) = head.split_once("  exit=").unwrap_or((head, ""));
                let expected = lines
                    .next()
                    .and_then(|l| l.strip_prefix("  stdout:"))
                    .map(str::trim)
                    .unwrap_or("?");
                let stdout = std::fs::read_to_string(dir.join(format!("stdout/{name}.jsonl")))
                    .unwrap_or_default();
                let rc = std::fs::read_to_string(dir.join(format!("stdout/{name}.rc")))
                    .unwrap_or_default();
                assert_eq!(stdout_line(&stdout), expected, "{release} {name}");
                assert_eq!(rc.trim(), exit, "{release} {name}");
                checked += 1;
            }
            assert!(checked >= 60, "{release}: only {checked} scenarios");
        }
    }
}
