//! Which Claude Code release `fake-claude` imitates: `FAKE_CLAUDE_RELEASE=2.1.197` or
//! `2.1.332` (the default). The differences between the two are those of docs/claude-cli.md §15
//! that the daemon can observe on stdout and in the transcript; [`Release::V2_1_197`] names
//! each one where it is imitated.

/// Environment variable that picks the release the fake imitates.
pub const RELEASE_ENV: &str = "FAKE_CLAUDE_RELEASE";

/// A supported release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// 2.1.197, what `npm install` gives on Node < 22. Compared with 2.1.332 (§15):
    /// no `command_lifecycle` lines and no `user_message_uuids`; the `--replay-user-messages`
    /// echo comes after the reply's deltas, just before the turn's first `assistant` (or
    /// `user`) line, instead of before `message_start`; no `api_message_id` (nor
    /// `thinking_display`) on `stream_event` lines, the id only in `message_start`'s
    /// `event.message.id`; `can_use_tool` right after the `assistant(tool_use)` line, before
    /// its `content_block_stop`; no `tool_result_meta`; no `result_index`,
    /// `queued_turn_count`; no stream tail after an interrupt; an `interrupt` reply without
    /// `response`; an API error's synthetic line without `is_api_error_message` and
    /// `api_error_status` (only `error`) and its `result` with `terminal_reason: "completed"`;
    /// no `system/permission_denied` and no `system/session_title_changed`; `assistant` lines
    /// without `timestamp`; and each transcript record written about 100 ms after it is made
    /// (so a reply's lands after its `result`).
    V2_1_197,
    /// 2.1.332, the release the daemon targets.
    V2_1_332,
}

impl Release {
    /// The release named by [`RELEASE_ENV`]; unset or empty means 2.1.332.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var(RELEASE_ENV) {
            Err(std::env::VarError::NotPresent) => Ok(Self::V2_1_332),
            Ok(v) if v.is_empty() => Ok(Self::V2_1_332),
            Ok(v) => Self::parse(&v).ok_or_else(|| {
                format!("fake-claude: {RELEASE_ENV}={v:?} is not 2.1.197 or 2.1.332")
            }),
            Err(err) => Err(format!("fake-claude: {RELEASE_ENV}: {err}")),
        }
    }

    /// `2.1.197` or `2.1.332`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "2.1.197" => Some(Self::V2_1_197),
            "2.1.332" => Some(Self::V2_1_332),
            _ => None,
        }
    }

    /// The version as `FAKE_CLAUDE_RELEASE` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V2_1_197 => "2.1.197",
            Self::V2_1_332 => "2.1.332",
        }
    }

    /// `claude_code_version` (and the transcripts' `version`) the fake reports.
    pub fn version(self) -> &'static str {
        match self {
            Self::V2_1_197 => "2.1.197-fake",
            Self::V2_1_332 => super::VERSION,
        }
    }

    /// Whether this is the older release, 2.1.197.
    pub fn is_2_1_197(self) -> bool {
        self == Self::V2_1_197
    }
}
