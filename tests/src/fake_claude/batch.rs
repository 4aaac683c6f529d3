//! One-shot `-p` runs that are not stream-json (how paddockd's sweeper runs claude: the prompt
//! on stdin, `--output-format json`, no tools). The prompt of such a run is not a `fake:` script,
//! so two side channels let a test steer and inspect it:
//!
//! - `FAKE_CLAUDE_SWEEP_REPLY=<file>`: the run answers with the file's content (read when the
//!   run starts, so a test may change it between runs). Content starting with `fake:` is played
//!   as a script instead (e.g. `fake:[{"crash":3}]` or `fake:[{"hang":true}]`); any other
//!   content is the reply text, as one text block. Without the variable (or with an empty
//!   one), a plain prompt is echoed as before.
//! - With `FAKE_CLAUDE_STATE_DIR` set, the prompt the run received is written to
//!   `<dir>/<pid>.prompt.txt`.
//!
//! Chat processes (`--input-format stream-json`) never look at either: their behaviour does
//! not change.

use std::path::Path;

use serde_json::json;

use super::emit::emit_stderr;
use super::script::SCRIPT_PREFIX;

/// Environment variable naming the reply file of one-shot runs.
pub const SWEEP_REPLY_ENV: &str = "FAKE_CLAUDE_SWEEP_REPLY";

/// The file a one-shot run's prompt is recorded in.
pub fn prompt_path(state_dir: &Path, pid: u32) -> std::path::PathBuf {
    state_dir.join(format!("{pid}.prompt.txt"))
}

/// Records `prompt` (when there is a state directory) and gives the user message text the run
/// plays: the reply file's script or text, else the prompt itself.
pub fn message_for(prompt: String, state_dir: Option<&Path>) -> String {
    if let Some(dir) = state_dir
        && let Err(err) = std::fs::write(prompt_path(dir, std::process::id()), &prompt)
    {
        emit_stderr(&format!("fake-claude: cannot record the prompt: {err}"));
    }
    let Some(file) = std::env::var_os(SWEEP_REPLY_ENV).filter(|f| !f.is_empty()) else {
        return prompt;
    };
    let reply = match std::fs::read_to_string(&file) {
        Ok(reply) => reply,
        Err(err) => {
            let message = format!(
                "fake-claude: cannot read {SWEEP_REPLY_ENV}={}: {err}",
                Path::new(&file).display()
            );
            emit_stderr(&message);
            // A failing run, as a CLI that cannot answer would be.
            return format!(
                "{SCRIPT_PREFIX}{}",
                json!([{"api_error": 500, "message": message}])
            );
        }
    };
    if reply.trim_start().starts_with(SCRIPT_PREFIX) {
        return reply;
    }
    format!("{SCRIPT_PREFIX}{}", json!([{"text": reply, "chunks": 1}]))
}
