//! Chats: sending turns, commands, cancelling, subscribing, listing, updating, resolving and
//! forking, with their replies and attachments.

use serde::{Deserialize, Serialize};

use super::*;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSend {
    /// The project; `""` is the root workspace.
    pub project_slug: String,
    /// `None` starts a new chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Prepend the project's OVERVIEW.md and CHANGELOG.md tail to a new chat's first prompt.
    #[serde(default, skip_serializing_if = "is_false")]
    pub preload_context: bool,
    /// Files to attach to the message (within the daemon's limits on size, count and type).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<AttachmentUpload>,
    /// Where a new chat works: in a git worktree of its own, or in the project's directory.
    /// Absent: the project's directory. Ignored for an existing chat (it works where it began).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
}

/// Where a new chat works (`chat:send`'s `isolation`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Isolation {
    /// A git worktree of the project's repository, in a folder paddockd owns, on a branch of
    /// its own: `branch` (default `paddock/<first 8 of the session id>`) from `base` (a commit,
    /// branch or tag; default the project's `HEAD`).
    Worktree {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<String>,
    },
    /// The project's own directory, shared with its other chats.
    None,
}

/// `attachment:get`: which kept attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentRef {
    /// `<uuid><ext>`, as the message's attachment block or the `send_file` notice names it.
    pub attachment_id: String,
}

/// A kept attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub id: String,
    /// `image`, `pdf`, `markdown`, `code`, `text`, `html` or `file` (by its extension).
    pub file_kind: String,
    pub size: u64,
    /// The bytes, base64 (standard alphabet, padded).
    pub data: String,
}

/// A file attached to a message: a path on the daemon's machine, or the bytes themselves
/// (base64, from a client on another machine). The daemon keeps an immutable copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentUpload {
    /// The file's name as the user knows it (`screenshot.png`).
    pub name: String,
    /// An absolute path the daemon reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The bytes, base64 (standard alphabet, padded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCommand {
    pub project_slug: String,
    pub session_id: String,
    /// The slash command, e.g. `/compact`.
    pub command: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCancel {
    pub session_id: String,
    /// When given, cancel only if this job is still the running one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSubscribe {
    pub session_id: String,
    /// Replay buffered frames. False on a fresh view that hydrates from the transcript.
    #[serde(default)]
    pub want_replay: bool,
    /// The last seq the client saw; replay starts at `lastSeq + 1`. `None` with
    /// `wantReplay` replays everything the running turn's buffer still holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seq: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSetQueue {
    pub session_id: String,
    /// `None` clears the slot.
    pub message: Option<String>,
}

/// The most chats one batch request may name.
pub const BATCH_SESSIONS_MAX: usize = 500;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatUpdate {
    pub session_ids: Vec<String>,
    pub action: ChatAction,
}

/// What `chat:update` does to each chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatAction {
    Archive,
    Unarchive,
    Star,
    Unstar,
    /// Mark seen now (for the asking user); clears a manual unread.
    Read,
    /// Flag unread again (for the asking user).
    Unread,
    /// Make the chat a root of the tree, whatever its recorded or inferred parent.
    Detach,
    /// Undo `detach`.
    Attach,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIds {
    pub session_ids: Vec<String>,
}

/// `chat:resolve`: 1 to 500 prefixes of session ids (compared without case).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatResolve {
    pub prefixes: Vec<String>,
}

/// The chats each prefix of a `chat:resolve` names, in its order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resolved {
    pub prefixes: Vec<ResolvedPrefix>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedPrefix {
    pub prefix: String,
    /// The chats whose ids start with it, by id; at most 6 (a whole id names one).
    pub chats: Vec<ResolvedChat>,
    /// How many more start with it.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub more: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedChat {
    pub session_id: String,
    pub project_slug: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatFork {
    pub session_id: String,
    /// The fork's title; default: the source's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatScope {
    #[default]
    Active,
    Archived,
    All,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatList {
    /// `None` lists every project's chats; `Some("")` only the root workspace's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_slug: Option<String>,
    #[serde(default)]
    pub scope: ChatScope,
    /// The `revision` of an earlier answer to this same listing (same project, scope and
    /// user): the answer then holds only what changed since, when the daemon can still tell
    /// ([`Chats::delta`]). `None`: the full list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// Each row's whole title. Without it a title longer than [`TITLE_CHARS`] characters is
    /// cut there and ends in `…` (a chat's title is its first prompt until it is named, and a
    /// pasted prompt can be thousands of lines).
    #[serde(default, skip_serializing_if = "is_false")]
    pub full_titles: bool,
}

/// The most characters of a title a chat row carries unless whole titles are asked for
/// ([`ChatList::full_titles`]); a longer one keeps this many and `…` is added.
pub const TITLE_CHARS: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Updated {
    /// Chats whose state actually changed (already-archived chats do not count).
    pub changed: u32,
    /// What a person should know of it (a worktree kept because it holds unmerged work).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Forked {
    pub project_slug: String,
    pub session_id: String,
}

/// `chat:promote`: move a chat, with the chats under it in its project, to another project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatPromote {
    pub session_id: String,
    /// The project it moves to ("" is the root workspace). A slug no project has makes a
    /// new project (its folder in paddock's data), as `project:create` would.
    pub to_project: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Promoted {
    pub from_project: String,
    pub to_project: String,
    /// The chats moved: the one named first, then the chats under it, in tree order.
    pub session_ids: Vec<String>,
    /// The project was made for this move.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_project: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    pub project_slug: String,
    pub session_id: String,
    pub job_id: String,
    /// True when the turn waits for a free `claude` process slot.
    pub queued: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cancelled {
    /// False when nothing was running.
    pub was_running: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscribed {
    pub session_id: String,
    pub running: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// How many buffered frames follow this reply as replay.
    pub replayed: u64,
    /// The seq the next live frame will carry.
    pub next_seq: u64,
}

/// The answer to `chat:list`: the full list, or (`delta`) what changed since the asked revision.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Chats {
    /// The full list in tree order; in a delta, only the rows that changed (or appeared) since
    /// `since`, in tree order.
    pub chats: Vec<ChatSummary>,
    /// This listing's revision now: send it back as `since` for a delta. Revisions never repeat
    /// across daemon runs. `None` from a daemon that does not keep them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// True: `chats` holds only the changed rows and `removed` the ids that left the listing;
    /// false: `chats` is the whole list.
    #[serde(default, skip_serializing_if = "is_false")]
    pub delta: bool,
    /// In a delta: the ids no longer in this listing (archived away, deleted, moved).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// In a delta, one per row of `chats`: the session id of the row listed just before it in
    /// the whole list (`None`: it is first). A row not in `chats` kept its predecessor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<Option<String>>,
}

/// How a chat came to exist (its run provenance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    #[default]
    Human,
    Scheduled,
    Spawned,
    Hook,
    Adopted,
}

impl Origin {
    /// The origin's wire name (`human`, `scheduled`, ...), as serde writes it.
    pub fn wire_name(self) -> &'static str {
        match self {
            Origin::Human => "human",
            Origin::Scheduled => "scheduled",
            Origin::Spawned => "spawned",
            Origin::Hook => "hook",
            Origin::Adopted => "adopted",
        }
    }
}

/// One row of a chat list, in tree order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    pub session_id: String,
    pub project_slug: String,
    pub title: String,
    pub origin: Origin,
    pub depth: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_project: Option<String>,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub message_count: u64,
    pub running: bool,
    pub unread: bool,
    pub archived: bool,
    pub starred: bool,
    /// Explicitly detached from its parent (drawn as a root).
    #[serde(default, skip_serializing_if = "is_false")]
    pub detached: bool,
    /// A fork: a copy of the chat `parent_session_id` names (`chat:fork`, `fork_chat`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fork: bool,
    /// The git worktree it works in, when it has one of its own (`chat:send`'s `isolation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<ChatWorktree>,
    /// Other chats of its project that changed some of the files it changed (their work not
    /// merged, or not committed in the shared checkout): seen before any merge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlaps: Vec<ChatOverlap>,
    /// The schedule or hook that started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// Where the chat is drawn: the resolved parent (recorded, else inferred), when that
    /// parent is in this listing. `None`: a root row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_parent: Option<String>,
    /// Nesting level in this listing (0 for a root row).
    #[serde(default)]
    pub level: u32,
    /// Direct children in this listing, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<ChatUsage>,
    /// The follow-up queued to be sent when the running turn ends (`chat:set_queue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued: Option<String>,
    /// Its last turn was cut short (its `claude` died, or the daemon stopped): `chat:continue`
    /// picks it up.
    #[serde(default, skip_serializing_if = "is_false")]
    pub interrupted: bool,
    /// A tool call of its running turn waits for a person (`approval:list` has it).
    #[serde(default, skip_serializing_if = "is_false")]
    pub waiting_approval: bool,
    /// Its turn is queued for a free claude process: every one `max_processes` allows is busy
    /// (it is `running` too).
    #[serde(default, skip_serializing_if = "is_false")]
    pub waiting_process: bool,
    /// Its newest run failed (not cut short, not cancelled): a person should look.
    #[serde(default, skip_serializing_if = "is_false")]
    pub failed: bool,
    /// Why it was cut short, in words ("claude exited with signal 9", "paddockd stopped while
    /// it ran …"), when `interrupted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_reason: Option<String>,
    /// Parked on a usage limit: the CLI's message, with its reset time when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked: Option<String>,
    /// A one-line status, refreshed after each turn: the first line of the newest reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// Another chat that changed some of the same files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatOverlap {
    pub session_id: String,
    /// The files both changed, relative to the project's folder.
    pub files: Vec<String>,
}

/// A chat's own git worktree, as paddockd made it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatWorktree {
    /// Its folder (paddockd's own, outside the user's checkout).
    pub path: String,
    /// The project's folder below the repository's top (`sub/dir/`; empty at the top): the
    /// chat works in `path` joined with it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// Its branch.
    pub branch: String,
    /// The commit the branch started from.
    pub base: String,
    /// The branch the base was taken from, which its work is for (empty: a detached HEAD or
    /// a base that is no branch).
    pub target: String,
    /// RFC 3339, when it was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The chat whose worktree it merges into (a child spawned by a worktree chat), instead
    /// of `target` as a branch of the project's checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_chat: Option<String>,
    /// Commits on its branch that its target lacks, and on its target that it lacks.
    #[serde(default)]
    pub ahead: u32,
    #[serde(default)]
    pub behind: u32,
    /// The files its work changes against its base (the merge-base with its target):
    /// committed, uncommitted and untracked, relative to the project's folder.
    #[serde(default)]
    pub changed_files: Vec<String>,
    /// Its latest merge into its target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<WorktreeMergeRecord>,
    /// Its folder is gone (removed by hand): its turns are refused until it is discarded.
    #[serde(default, skip_serializing_if = "is_false")]
    pub missing: bool,
}

/// Tokens and cost of a chat, from its transcript.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatUsage {
    /// Tokens in the context window after the latest message.
    pub context_tokens: u64,
    pub context_limit: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_creation_tokens: u64,
    /// Estimated from the token counts and the model's list price.
    pub cost_usd: f64,
}
