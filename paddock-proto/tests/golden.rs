//! Golden tests: one committed JSON line per protocol message, checked both ways.
//!
//! The table in [`table`] holds one realistic example per message (name → value). For every row:
//! - `encode(value)` must equal `tests/golden/NAME.json` byte for byte (one line, newline included);
//! - decoding that file through the top-level type (`ClientMessage` / `ServerMessage`) must give
//!   the value back;
//! - `docs/PROTOCOL.md` must show it: a line ``Golden example `NAME`:`` followed by a ```json block
//!   holding exactly the golden line.
//!
//! The `covers!` matches below name a row for every variant of every wire enum, with no wildcard
//! arm: adding a variant fails to compile until it has a row name, and then fails
//! `every_variant_has_a_golden` until the table has an example of it.
//!
//! Adding a message: add a row to `table`, add its section to docs/PROTOCOL.md (a line
//! ``Golden example `NAME`:`` is enough to start with), and run
//! `UPDATE_GOLDEN=1 cargo test -p paddock-proto --test golden`: it writes the golden file and the
//! doc's example block. Review both diffs. The same command refreshes every golden file and doc
//! example after an intended wire change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use paddock_proto::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Realistic ids, shared by the examples so the table reads like one session of use.
// ---------------------------------------------------------------------------------------------

/// A human-started chat in the `webapp` project.
const SESSION: &str = "5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90";
/// A chat the one above spawned (`create_chat`).
const CHILD: &str = "a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68";
/// A scheduled chat in the root workspace.
const ROOT_CHAT: &str = "c71d4e2a-9f08-4b36-8e1c-5a2f7d9b3e04";
/// A chat an event hook started.
const HOOK_CHAT: &str = "4b8e2f1a-7c3d-4e9b-a6f0-8d2c1e5b9a73";
const JOB: &str = "0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67";
const MESSAGE: &str = "e2b7c9d1-4a5f-4e3b-8c6d-9f1a0b2e3c47";
const TOOL_USE: &str = "toolu_01HkY7tQ3mVb9sXwZr2PqLcN";
const PROJECT: &str = "webapp";
/// The root workspace's key: a real key, never "absent".
const ROOT: &str = "";

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Golden {
    Client(ClientMessage),
    Server(ServerMessage),
}

fn request(id: RequestId, request: Request) -> Golden {
    Golden::Client(ClientMessage { id, request })
}

fn frame(project_slug: &str, session_id: &str, job_id: &str, seq: u64, event: ChatEvent) -> Golden {
    Golden::Server(ServerMessage::Frame(HubFrame {
        routing: Routing {
            project_slug: project_slug.into(),
            session_id: session_id.into(),
            job_id: job_id.into(),
            seq,
        },
        event,
    }))
}

fn control(msg: ControlMessage) -> Golden {
    Golden::Server(ServerMessage::Control(msg))
}

fn ok(id: RequestId, reply: Reply) -> Golden {
    control(ControlMessage::Response(Response {
        id,
        outcome: Outcome::Ok(reply),
    }))
}

fn err(id: RequestId, code: ErrorCode, message: &str) -> Golden {
    control(ControlMessage::Response(Response {
        id,
        outcome: Outcome::Err(ErrorBody::new(code, message)),
    }))
}

fn s(v: &str) -> String {
    v.to_owned()
}

/// A worktree chat's worktree, merged once.
fn worktree_example() -> ChatWorktree {
    ChatWorktree {
        path: s("/home/ana/.local/share/paddock/worktrees/webapp/5f0c2d8e"),
        prefix: String::new(),
        branch: s("paddock/5f0c2d8e"),
        base: s("8d1e4b7c2a9f3e6d5b0a1c4f7e2d9b8a6c3f1e0d"),
        target: s("main"),
        created_at: Some(s("2026-11-03T09:12:40Z")),
        target_chat: None,
        ahead: 1,
        behind: 2,
        changed_files: vec![s("src/auth/cookie.ts")],
        merged: Some(WorktreeMergeRecord {
            commit: s("4c2b9e1d7a3f5e8b0c6d2a9f1e4b7c3d8a5f0e2b"),
            into: s("main"),
            squash: false,
            at: s("2026-11-03T10:02:11Z"),
        }),
        missing: false,
    }
}

fn user_turn(message_id: &str, text: &str, attribution: Option<Attribution>) -> ChatEvent {
    ChatEvent::User(UserTurn {
        message_id: Some(s(message_id)),
        text: s(text),
        attribution,
    })
}

fn chat_summary() -> ChatSummary {
    ChatSummary {
        session_id: s(SESSION),
        project_slug: s(PROJECT),
        title: s("Fix the flaky login test"),
        origin: Origin::Human,
        depth: 0,
        parent_session_id: None,
        parent_project: None,
        created_at: Some(s("2026-11-03T09:12:40Z")),
        updated_at: Some(s("2026-11-03T09:15:02Z")),
        model: Some(s("claude-sonnet-4-5")),
        message_count: 6,
        running: false,
        unread: false,
        archived: false,
        starred: true,
        detached: false,
        fork: false,
        worktree: Some(ChatWorktree {
            path: s("/home/ana/.local/share/paddock/worktrees/webapp/5f0c2d8e"),
            prefix: String::new(),
            branch: s("paddock/5f0c2d8e"),
            base: s("8d1e4b7c2a9f3e6d5b0a1c4f7e2d9b8a6c3f1e0d"),
            target: s("main"),
            created_at: Some(s("2026-11-03T09:12:40Z")),
            target_chat: None,
            ahead: 2,
            behind: 0,
            changed_files: vec![s("src/auth/cookie.ts"), s("tests/cookie-race.spec.ts")],
            merged: None,
            missing: false,
        }),
        overlaps: vec![ChatOverlap {
            session_id: s(CHILD),
            files: vec![s("src/auth/cookie.ts")],
        }],
        trigger: None,
        tree_parent: None,
        level: 0,
        children: vec![s(CHILD)],
        usage: Some(ChatUsage {
            context_tokens: 41_873,
            context_limit: 200_000,
            input_tokens: 1_204,
            output_tokens: 3_877,
            cache_read_tokens: 118_342,
            cache_creation_tokens: 40_511,
            cost_usd: 0.2438,
        }),
        queued: None,
        interrupted: false,
        interrupted_reason: None,
        waiting_approval: false,
        waiting_process: false,
        failed: false,
        parked: None,
        status: Some(s(
            "Found it: the test reads the cookie before the refresh lands.",
        )),
    }
}

fn schedule_spec() -> TriggerSpec {
    TriggerSpec {
        kind: TriggerKind::Schedule,
        prompt: s("Check last night's backup and report anything odd."),
        cron: Some(s("0 2 * * *")),
        every: None,
        timezone: Some(s("Europe/Berlin")),
        missed: MissedPolicy::RunOnce,
        on: None,
        paths: vec![],
        debounce_secs: None,
        session: SessionPolicy::Resume,
        model: None,
        enabled: true,
        approval_timeout_secs: None,
    }
}

fn hook_spec(on: HookEvent, prompt: &str) -> TriggerSpec {
    TriggerSpec {
        kind: TriggerKind::Hook,
        prompt: s(prompt),
        cron: None,
        every: None,
        timezone: None,
        missed: MissedPolicy::Skip,
        on: Some(on),
        paths: vec![],
        debounce_secs: None,
        session: SessionPolicy::New,
        model: None,
        enabled: true,
        approval_timeout_secs: None,
    }
}

fn trigger_info(name: &str, spec: TriggerSpec) -> TriggerInfo {
    TriggerInfo {
        project_slug: s(PROJECT),
        name: s(name),
        spec,
        next_fire: None,
        last_fire: None,
        last_status: None,
        session_id: None,
        problem: None,
    }
}

fn transcript(id: RequestId, entries: Vec<TranscriptEntry>) -> Golden {
    ok(
        id,
        Reply::Transcript(Box::new(Transcript {
            chat: chat_summary(),
            entries,
        })),
    )
}

fn resync(reason: ResyncReason) -> Golden {
    control(ControlMessage::Resync(Resync {
        session_id: s(SESSION),
        reason,
    }))
}

/// Every example, by golden file name. Names are `GROUP.WIRE_NAME[.VARIANT]`, with `:` written
/// `_` so they are file names: `request.chat_send`, `event.chat_response`, `reply.hello`,
/// `error.not_found`, `attribution.hook`, `transcript.tool_use`, `resync.slow_client`...
fn table() -> Vec<(&'static str, Golden)> {
    vec![
        // --- requests --------------------------------------------------------------------
        (
            "request.hello",
            request(
                1,
                Request::Hello(Hello {
                    protocol_version: PROTOCOL_VERSION,
                    client: s("paddock 0.1.0"),
                }),
            ),
        ),
        ("request.ping", request(2, Request::Ping)),
        (
            "request.chat_send",
            request(
                3,
                Request::ChatSend(ChatSend {
                    project_slug: s(PROJECT),
                    session_id: None,
                    message: s(
                        "The login test fails about one run in five. Find out why and fix it.",
                    ),
                    model: Some(s("claude-sonnet-4-5")),
                    preload_context: true,
                    attachments: Vec::new(),
                    isolation: None,
                }),
            ),
        ),
        (
            "request.chat_send.resume",
            request(
                4,
                Request::ChatSend(ChatSend {
                    project_slug: s(ROOT),
                    session_id: Some(s(ROOT_CHAT)),
                    message: s("Also check the nightly backup log."),
                    model: None,
                    preload_context: false,
                    attachments: Vec::new(),
                    isolation: None,
                }),
            ),
        ),
        (
            "request.chat_send.worktree",
            request(
                5,
                Request::ChatSend(ChatSend {
                    project_slug: s(PROJECT),
                    session_id: None,
                    message: s("Try the retry approach on the login test."),
                    model: None,
                    preload_context: false,
                    attachments: Vec::new(),
                    isolation: Some(Isolation::Worktree {
                        branch: Some(s("login-retry")),
                        base: None,
                    }),
                }),
            ),
        ),
        (
            "request.chat_send.attachments",
            request(
                6,
                Request::ChatSend(ChatSend {
                    project_slug: s(PROJECT),
                    session_id: Some(s(SESSION)),
                    message: s("The layout breaks like this; and here is the log."),
                    model: None,
                    preload_context: false,
                    attachments: vec![
                        AttachmentUpload {
                            name: s("broken-layout.png"),
                            path: Some(s("/home/ana/Pictures/broken-layout.png")),
                            data: None,
                        },
                        AttachmentUpload {
                            name: s("build.log"),
                            path: None,
                            data: Some(s("ZXJyb3I6IGNhbm5vdCBmaW5kIG1vZHVsZSAnLi9hcHAnCg==")),
                        },
                    ],
                    isolation: None,
                }),
            ),
        ),
        (
            "request.attachment_get",
            request(
                95,
                Request::AttachmentGet(AttachmentRef {
                    attachment_id: s("3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c.png"),
                }),
            ),
        ),
        (
            "request.chat_command",
            request(
                5,
                Request::ChatCommand(ChatCommand {
                    project_slug: s(PROJECT),
                    session_id: s(SESSION),
                    command: s("/compact"),
                }),
            ),
        ),
        (
            "request.chat_cancel",
            request(
                6,
                Request::ChatCancel(ChatCancel {
                    session_id: s(SESSION),
                    job_id: Some(s(JOB)),
                }),
            ),
        ),
        (
            "request.chat_subscribe",
            request(
                7,
                Request::ChatSubscribe(ChatSubscribe {
                    session_id: s(SESSION),
                    want_replay: true,
                    last_seq: Some(41),
                }),
            ),
        ),
        (
            "request.chat_subscribe.fresh",
            request(
                8,
                Request::ChatSubscribe(ChatSubscribe {
                    session_id: s(SESSION),
                    want_replay: false,
                    last_seq: None,
                }),
            ),
        ),
        (
            "request.chat_unsubscribe",
            request(
                9,
                Request::ChatUnsubscribe(SessionRef {
                    session_id: s(SESSION),
                }),
            ),
        ),
        (
            "request.chat_set_queue",
            request(
                10,
                Request::ChatSetQueue(ChatSetQueue {
                    session_id: s(SESSION),
                    message: Some(s("When you are done, run the whole suite once more.")),
                }),
            ),
        ),
        (
            "request.chat_set_queue.clear",
            request(
                11,
                Request::ChatSetQueue(ChatSetQueue {
                    session_id: s(SESSION),
                    message: None,
                }),
            ),
        ),
        (
            "request.chat_continue",
            request(
                12,
                Request::ChatContinue(SessionRef {
                    session_id: s(SESSION),
                }),
            ),
        ),
        (
            "request.chat_list",
            request(
                13,
                Request::ChatList(ChatList {
                    project_slug: Some(s(PROJECT)),
                    scope: ChatScope::Active,
                    since: None,
 full_titles: false,
                }),
            ),
        ),
        (
            "request.chat_list.root",
            request(
                14,
                Request::ChatList(ChatList {
                    project_slug: Some(s(ROOT)),
                    scope: ChatScope::Archived,
                    since: None,
 full_titles: false,
                }),
            ),
        ),
        (
            "request.chat_list.everything",
            request(
                15,
                Request::ChatList(ChatList {
                    project_slug: None,
                    scope: ChatScope::All,
                    since: None,
 full_titles: false,
                }),
            ),
        ),
        (
            "request.chat_list.since",
            request(
                80,
                Request::ChatList(ChatList {
                    project_slug: Some(s(PROJECT)),
                    scope: ChatScope::Active,
                    since: Some(1_764_477_600_000_042),
 full_titles: false,
                }),
            ),
        ),
        (
            "request.chat_transcript",
            request(
                16,
                Request::ChatTranscript(SessionRef {
                    session_id: s(SESSION),
                }),
            ),
        ),
        ("request.project_list", request(17, Request::ProjectList)),
        (
            "request.project_create",
            request(
                18,
                Request::ProjectCreate(ProjectCreate {
                    slug: s(PROJECT),
                    path: Some(s("/home/ana/src/webapp")),
                    ..Default::default()
                }),
            ),
        ),
        (
            "request.project_create.repo",
            request(
                90,
                Request::ProjectCreate(ProjectCreate {
                    slug: s(PROJECT),
                    path: None,
                    repo: Some(s("https://github.com/ana/webapp.git")),
                    name: Some(s("Web App")),
                    summary: Some(s("The customer-facing web app")),
                    area: Some(s("Work")),
                    status: Some(ProjectStatus::Active),
                }),
            ),
        ),
        (
            "request.project_update",
            request(
                91,
                Request::ProjectUpdate(ProjectUpdate {
                    slug: s(PROJECT),
                    summary: Some(Some(s("The customer-facing web app, now on Next 15"))),
                    status: Some(Some(ProjectStatus::Paused)),
                    drive_mode: Some(Some(ProjectDriveMode::Batch)),
                    max_spawn_depth: Some(None),
                    ..Default::default()
                }),
            ),
        ),
        (
            "request.project_update.rules",
            request(
                96,
                Request::ProjectUpdate(ProjectUpdate {
                    slug: s(PROJECT),
                    allow: vec![s("Bash(npm test:*)")],
                    disallow: vec![s("Bash(mkdir:*)")],
                    ..Default::default()
                }),
            ),
        ),
        (
            "request.project_update.reach",
            request(
                97,
                Request::ProjectUpdate(ProjectUpdate {
                    slug: s(PROJECT),
                    reach: vec![s("api"), s("")],
                    unreach: vec![s("ops")],
                    ..Default::default()
                }),
            ),
        ),
        (
            "request.project_delete",
            request(
                92,
                Request::ProjectDelete(ProjectDelete {
                    slug: s("scratch"),
                    force: true,
                    files: Some(ProjectFiles::Trash),
                }),
            ),
        ),
        (
            "request.project_promote",
            request(
                93,
                Request::ProjectPromote(ProjectPromote {
                    slug: s("notes"),
                    repo: s("git@github.com:ana/notes.git"),
                }),
            ),
        ),
        (
            "request.project_overview",
            request(
                94,
                Request::ProjectOverviewRequest(ProjectRef { slug: s(PROJECT) }),
            ),
        ),
        (
            "request.chat_update",
            request(
                21,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(SESSION), s(CHILD)],
                    action: ChatAction::Archive,
                }),
            ),
        ),
        (
            "request.chat_update.read",
            request(
                22,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(CHILD)],
                    action: ChatAction::Read,
                }),
            ),
        ),
        (
            "request.chat_update.unarchive",
            request(
                30,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(CHILD)],
                    action: ChatAction::Unarchive,
                }),
            ),
        ),
        (
            "request.chat_update.star",
            request(
                31,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(CHILD)],
                    action: ChatAction::Star,
                }),
            ),
        ),
        (
            "request.chat_update.unstar",
            request(
                32,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(CHILD)],
                    action: ChatAction::Unstar,
                }),
            ),
        ),
        (
            "request.chat_update.unread",
            request(
                33,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(CHILD)],
                    action: ChatAction::Unread,
                }),
            ),
        ),
        (
            "request.chat_update.detach",
            request(
                34,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(CHILD)],
                    action: ChatAction::Detach,
                }),
            ),
        ),
        (
            "request.chat_update.attach",
            request(
                35,
                Request::ChatUpdate(ChatUpdate {
                    session_ids: vec![s(CHILD)],
                    action: ChatAction::Attach,
                }),
            ),
        ),
        (
            "request.chat_delete",
            request(
                23,
                Request::ChatDelete(SessionIds {
                    session_ids: vec![s(HOOK_CHAT)],
                }),
            ),
        ),
        (
            "request.chat_fork",
            request(
                24,
                Request::ChatFork(ChatFork {
                    session_id: s(SESSION),
                    name: Some(s("Login test: try the retry approach")),
                }),
            ),
        ),
        (
            "request.chat_promote",
            request(
                24,
                Request::ChatPromote(ChatPromote {
                    session_id: s(SESSION),
                    to_project: s("login-service"),
                }),
            ),
        ),
        (
            "request.history_list",
            request(
                25,
                Request::HistoryList(HistoryList {
                    project_slug: None,
                    unattended: true,
                    limit: Some(50),
                }),
            ),
        ),
        ("request.history_seen", request(26, Request::HistorySeen)),
        (
            "request.chat_import",
            request(
                27,
                Request::ChatImport(ChatImport {
                    project_slug: s(PROJECT),
                    path: Some(s("/home/ana/src/webapp")),
                    dry_run: false,
                }),
            ),
        ),
        (
            "request.trigger_list",
            request(40, Request::TriggerList(TriggerList { project_slug: None })),
        ),
        (
            "request.trigger_set",
            request(
                41,
                Request::TriggerSet(Box::new(TriggerSet {
                    project_slug: s(ROOT),
                    name: s("nightly-backup"),
                    spec: schedule_spec(),
                })),
            ),
        ),
        (
            "request.trigger_set.hook",
            request(
                42,
                Request::TriggerSet(Box::new(TriggerSet {
                    project_slug: s(PROJECT),
                    name: s("docs-changed"),
                    spec: TriggerSpec {
                        paths: vec![s("docs/**/*.md")],
                        debounce_secs: Some(10),
                        every: None,
                        ..hook_spec(HookEvent::FileChanged, "The docs changed: check the links.")
                    },
                })),
            ),
        ),
        (
            "request.trigger_set.every",
            request(
                43,
                Request::TriggerSet(Box::new(TriggerSet {
                    project_slug: s(PROJECT),
                    name: s("inbox"),
                    spec: TriggerSpec {
                        cron: None,
                        every: Some(s("15m")),
                        timezone: None,
                        missed: MissedPolicy::Skip,
                        session: SessionPolicy::New,
                        model: Some(s("claude-haiku-4-5")),
                        enabled: false,
                        approval_timeout_secs: None,
                        ..schedule_spec()
                    },
                })),
            ),
        ),
        (
            "request.trigger_remove",
            request(
                44,
                Request::TriggerRemove(TriggerRef {
                    project_slug: s(PROJECT),
                    name: s("docs-changed"),
                }),
            ),
        ),
        (
            "request.trigger_fire",
            request(
                45,
                Request::TriggerFire(TriggerFire {
                    project_slug: s(PROJECT),
                    name: s("ci-failed"),
                    message: Some(s("CI failed on main: https://ci.example/run/4711")),
                }),
            ),
        ),
        ("request.approval_list", request(50, Request::ApprovalList)),
        (
            "request.search",
            request(
                90,
                Request::Search(SearchRequest {
                    query: s("cookie \"refresh race\""),
                    project_slug: None,
                    limit: Some(20),
                    archived: false,
                }),
            ),
        ),
        (
            "request.notifications_subscribe",
            request(52, Request::NotificationsSubscribe),
        ),
        (
            "request.provenance_file",
            request(
                60,
                Request::ProvenanceFile(ProvenanceFile {
                    project_slug: Some(s(PROJECT)),
                    path: s("src/auth/cookie.ts"),
                }),
            ),
        ),
        (
            "request.provenance_touched",
            request(
                62,
                Request::ProvenanceTouched(ProvenanceTouched {
                    project_slug: s(PROJECT),
                    session_id: s(CHILD),
                    job_id: Some(s(JOB)),
                }),
            ),
        ),
        (
            "request.provenance_blame",
            request(
                63,
                Request::ProvenanceBlame(ProvenanceFile {
                    project_slug: Some(s(PROJECT)),
                    path: s("src/auth/cookie.ts"),
                }),
            ),
        ),
        (
            "request.files_list",
            request(
                64,
                Request::FilesList(FilesList {
                    project_slug: s(PROJECT),
                    path: s("src/auth"),
                    hidden: false,
                    limit: Some(200),
                }),
            ),
        ),
        (
            "request.files_read",
            request(
                65,
                Request::FilesRead(FilesRead {
                    project_slug: s(PROJECT),
                    path: s("src/auth/cookie.ts"),
                    max_bytes: None,
                }),
            ),
        ),
        (
            "request.git_status",
            request(
                70,
                Request::GitStatus(GitStatusRequest {
                    project_slug: s(PROJECT),
                    scope: GitScope::Subtree {
                        session_id: s(SESSION),
                    },
                }),
            ),
        ),
        (
            "request.git_status.project",
            request(
                71,
                Request::GitStatus(GitStatusRequest {
                    project_slug: s(PROJECT),
                    scope: GitScope::Project,
                }),
            ),
        ),
        (
            "request.git_diff",
            request(
                72,
                Request::GitDiff(GitDiffRequest {
                    project_slug: s(PROJECT),
                    scope: GitScope::Turn {
                        session_id: s(CHILD),
                        job_id: s(JOB),
                    },
                    path: Some(s("src/auth/cookie.ts")),
                }),
            ),
        ),
        (
            "request.git_commit",
            request(
                73,
                Request::GitCommit(GitCommitRequest {
                    project_slug: s(PROJECT),
                    scope: GitScope::Chat {
                        session_id: s(CHILD),
                    },
                    message: s("Fix the cookie refresh race"),
                    paths: vec![],
                }),
            ),
        ),
        (
            "request.git_push",
            request(
                74,
                Request::GitPush(GitPushRequest {
                    project_slug: s(PROJECT),
                    data_root: false,
                }),
            ),
        ),
        (
            "request.worktree_list",
            request(
                75,
                Request::WorktreeList(WorktreeList {
                    project_slug: Some(s(PROJECT)),
                    orphans: false,
                }),
            ),
        ),
        (
            "request.worktree_merge",
            request(
                76,
                Request::WorktreeMerge(WorktreeMerge {
                    session_id: s(CHILD),
                    squash: true,
                    message: Some(s("Fix the cookie refresh race")),
                }),
            ),
        ),
        (
            "request.worktree_rebase",
            request(
                77,
                Request::WorktreeRebase(WorktreeRebase {
                    session_id: s(CHILD),
                }),
            ),
        ),
        (
            "request.worktree_discard",
            request(
                78,
                Request::WorktreeDiscard(WorktreeDiscard {
                    session_id: s(CHILD),
                    force: false,
                    dry_run: false,
                }),
            ),
        ),
        (
            "request.worktree_prune",
            request(
                79,
                Request::WorktreePrune(WorktreePrune { project_slug: None }),
            ),
        ),
        (
            "request.git_push.data_root",
            request(
                75,
                Request::GitPush(GitPushRequest {
                    project_slug: s(ROOT),
                    data_root: true,
                }),
            ),
        ),
        (
            "request.approval_answer",
            request(
                51,
                Request::ApprovalAnswer(ApprovalAnswer {
                    ids: vec![s("apr_01"), s("apr_02")],
                    decision: ApprovalDecision::Allow,
                    message: None,
                }),
            ),
        ),
        (
            "request.approval_answer.deny",
            request(
                52,
                Request::ApprovalAnswer(ApprovalAnswer {
                    ids: vec![s("apr_03")],
                    decision: ApprovalDecision::Deny,
                    message: Some(s("Not on main; open a branch first.")),
                }),
            ),
        ),
        (
            "request.approval_answer.always",
            request(
                53,
                Request::ApprovalAnswer(ApprovalAnswer {
                    ids: vec![s("apr_04")],
                    decision: ApprovalDecision::Always,
                    message: None,
                }),
            ),
        ),
        (
            "request.agent_tools",
            request(
                1,
                Request::AgentTools(AgentAuth {
                    token: s("pdk_7f3a9c1e5b2d4f60a8e1c3b5d7f9a2c4"),
                    server: s("paddock_manage"),
                }),
            ),
        ),
        (
            "request.agent_call",
            request(
                2,
                Request::AgentCall(AgentCall {
                    token: s("pdk_7f3a9c1e5b2d4f60a8e1c3b5d7f9a2c4"),
                    server: s("paddock_manage"),
                    tool: s("create_chat"),
                    arguments: json!({"prompt": "Find where the session cookie is refreshed.", "name": "cookie refresh"}),
                    tool_use_id: Some(s(TOOL_USE)),
                }),
            ),
        ),
        ("request.daemon_status", request(19, Request::DaemonStatus)),
        (
            "request.daemon_shutdown",
            request(20, Request::DaemonShutdown),
        ),
        ("request.daemon_info", request(22, Request::DaemonInfo)),
        (
            "request.chat_resolve",
            request(
                23,
                Request::ChatResolve(ChatResolve {
                    prefixes: vec![s("5f0c2d8e"), s("a1b2")],
                }),
            ),
        ),
        // --- hub frames ------------------------------------------------------------------
        (
            "event.chat_user",
            frame(
                PROJECT,
                SESSION,
                JOB,
                1,
                user_turn(
                    MESSAGE,
                    "The login test fails about one run in five. Find out why and fix it.",
                    None,
                ),
            ),
        ),
        (
            "event.chat_thinking",
            frame(
                PROJECT,
                SESSION,
                JOB,
                2,
                ChatEvent::Thinking(TextDelta {
                    text: s("A one-in-five failure smells like a race on the session cookie."),
                }),
            ),
        ),
        (
            "event.chat_response",
            frame(
                PROJECT,
                SESSION,
                JOB,
                3,
                ChatEvent::Response(TextDelta {
                    text: s("Let me look at the test first."),
                }),
            ),
        ),
        (
            "event.chat_tool_start",
            frame(
                PROJECT,
                SESSION,
                JOB,
                4,
                ChatEvent::ToolStart(ToolStart {
                    tool_use_id: s(TOOL_USE),
                    name: s("Read"),
                    input: json!({"file_path": "/home/ana/src/webapp/tests/login.spec.ts"}),
                }),
            ),
        ),
        (
            "event.chat_tool_call",
            frame(
                PROJECT,
                SESSION,
                JOB,
                5,
                ChatEvent::ToolCall(ToolCall {
                    tool_use_id: s(TOOL_USE),
                    name: s("Read"),
                    input: json!({"file_path": "/home/ana/src/webapp/tests/login.spec.ts"}),
                    output: s(
                        "1\timport { test, expect } from '@playwright/test';\n2\t\n3\ttest('login', async ({ page }) => {",
                    ),
                    is_error: false,
                    // Keys in sorted order: serde_json's `preserve_order` feature may be
                    // switched on by another crate in a workspace build, and the golden line
                    // must not depend on it.
                    detail: Some(json!({
                        "file": {
                            "filePath": "/home/ana/src/webapp/tests/login.spec.ts",
                            "numLines": 3,
                            "startLine": 1,
                            "totalLines": 42
                        },
                        "type": "text"
                    })),
                }),
            ),
        ),
        (
            "event.chat_message_boundary",
            frame(
                PROJECT,
                SESSION,
                JOB,
                6,
                ChatEvent::MessageBoundary(MessageBoundary {
                    message_id: Some(s("7d3f9a1b-2c4e-4b6d-8f0a-1e3c5b7d9f2a")),
                }),
            ),
        ),
        (
            "event.chat_complete",
            frame(
                PROJECT,
                SESSION,
                JOB,
                9,
                ChatEvent::Complete(Complete {
                    success: true,
                    ended: Some(paddock_proto::Ended::Done),
                    error: None,
                    model: Some(s("claude-sonnet-4-5")),
                    usage: Some(Usage {
                        input_tokens: 1840,
                        output_tokens: 612,
                        cache_creation_input_tokens: 12033,
                        cache_read_input_tokens: 48210,
                        context_tokens: Some(62695),
                        context_window: Some(200000),
                    }),
                    cost_usd: Some(0.0731),
                    duration_ms: Some(18422),
                    terminal_reason: Some(s("completed")),
                }),
            ),
        ),
        (
            "event.chat_error",
            frame(
                PROJECT,
                SESSION,
                JOB,
                7,
                ChatEvent::Error(ChatError {
                    message: s("API Error: 529 Overloaded"),
                }),
            ),
        ),
        (
            "event.chat_notice",
            frame(
                PROJECT,
                SESSION,
                JOB,
                8,
                ChatEvent::Notice(Notice {
                    kind: NoticeKind::ApiError,
                    message: s(
                        "The Anthropic API is overloaded (529) and retries ran out. Send the message again later.",
                    ),
                }),
            ),
        ),
        (
            "event.chat_complete.failed",
            frame(
                PROJECT,
                SESSION,
                JOB,
                9,
                ChatEvent::Complete(Complete {
                    success: false,
                    ended: Some(paddock_proto::Ended::Failed),
                    error: Some(s("API Error: 529 Overloaded")),
                    model: Some(s("claude-sonnet-4-5")),
                    usage: None,
                    cost_usd: None,
                    duration_ms: Some(31877),
                    terminal_reason: Some(s("api_error")),
                }),
            ),
        ),
        (
            "event.chat_notice.interrupted",
            frame(
                PROJECT,
                SESSION,
                JOB,
                12,
                ChatEvent::Notice(Notice {
                    kind: NoticeKind::Interrupted,
                    message: s("Interrupted. The chat can be resumed with a new message."),
                }),
            ),
        ),
        (
            "event.chat_queued_flushed",
            frame(
                PROJECT,
                SESSION,
                "0193f4c9-8e21-7a05-b3d4-6f2e1c9a8b70",
                10,
                ChatEvent::QueuedFlushed(QueuedFlushed {
                    message: s("When you are done, run the whole suite once more."),
                }),
            ),
        ),
        (
            "event.chat_killed_task",
            frame(
                PROJECT,
                SESSION,
                JOB,
                14,
                ChatEvent::KilledTask(KilledTask {
                    task_id: Some(s("bash_3")),
                    message: s(
                        "Background task `npm run test:watch` was terminated while the chat waited on it.",
                    ),
                }),
            ),
        ),
        (
            "event.chat_answered",
            frame(
                PROJECT,
                SESSION,
                JOB,
                15,
                ChatEvent::Answered(paddock_proto::Answered {
                    tool: s("Bash"),
                    decision: paddock_proto::ApprovalDecision::Deny,
                    asked: s(
                        "Bash is waiting for your approval: `paddock approvals allow 3f9c1a2b` (or deny, always; `paddock approvals` lists them), or I in the TUI",
                    ),
                    message: s("Bash: denied (not on main)"),
                }),
            ),
        ),
        // --- attribution of injected user turns -------------------------------------------
        (
            "attribution.scheduled",
            frame(
                ROOT,
                ROOT_CHAT,
                "0193f4a0-0000-7b1c-9d2e-4f6a8c0e1b3d",
                1,
                user_turn(
                    "3c8e1f5a-6b2d-4a9e-8f7c-0d1b3e5a7c92",
                    "Summarise last night's backup log and flag anything unusual.",
                    Some(Attribution::Scheduled {
                        name: s("nightly-backup-check"),
                    }),
                ),
            ),
        ),
        (
            "attribution.sent",
            frame(
                PROJECT,
                SESSION,
                "0193f4d1-4b2a-7e60-9c81-2d7f3a5e0b96",
                15,
                user_turn(
                    "f4a2c8e1-9b3d-4f6a-8e0c-2d5b7a9c1e38",
                    "Report from the child chat: the race is in the cookie refresh; fix pushed on branch fix/login-race.",
                    Some(Attribution::Sent {
                        from_session_id: s(CHILD),
                        from_project: s(PROJECT),
                        from_title: Some(s("Investigate cookie refresh race")),
                    }),
                ),
            ),
        ),
        (
            "attribution.hook",
            frame(
                PROJECT,
                HOOK_CHAT,
                "0193f3b2-5c7e-7a91-8d3f-0e6b4a2c9d17",
                1,
                user_turn(
                    "8a6d2b4f-1e9c-4d7a-b3f5-7c0e2a4d6b81",
                    "CI failed on main: job `e2e` (run 4812). Look at the log and propose a fix.",
                    Some(Attribution::Hook {
                        name: s("ci-failure"),
                    }),
                ),
            ),
        ),
        (
            "attribution.recovery",
            frame(
                PROJECT,
                SESSION,
                "0193f4e0-6a3c-7d12-8e4b-1f9c2a7d5e30",
                16,
                user_turn(
                    "d5f7a9c1-3e2b-4f8d-a6c0-9b1e3d5f7a24",
                    "The background task you were waiting on was terminated. Continue from where you left off.",
                    Some(Attribution::Recovery),
                ),
            ),
        ),
        // --- control events --------------------------------------------------------------
        (
            "control.chat_active",
            control(ControlMessage::Active(Active {
                project_slug: s(PROJECT),
                session_id: s(SESSION),
                job_id: s(JOB),
                running: true,
            })),
        ),
        (
            "control.chat_active.stopped",
            control(ControlMessage::Active(Active {
                project_slug: s(ROOT),
                session_id: s(ROOT_CHAT),
                job_id: s("0193f4a0-0000-7b1c-9d2e-4f6a8c0e1b3d"),
                running: false,
            })),
        ),
        ("resync.aged_out", resync(ResyncReason::AgedOut)),
        ("resync.slow_client", resync(ResyncReason::SlowClient)),
        ("resync.unknown_seq", resync(ResyncReason::UnknownSeq)),
        (
            "control.approvals_changed",
            control(ControlMessage::ApprovalsChanged(ApprovalsChanged {
                pending: 2,
            })),
        ),
        (
            "control.project_changed",
            control(ControlMessage::ProjectChanged(ProjectChanged {
                project_slug: s(PROJECT),
                what: ProjectPart::Triggers,
            })),
        ),
        (
            "control.project_changed.files",
            control(ControlMessage::ProjectChanged(ProjectChanged {
                project_slug: s(PROJECT),
                what: ProjectPart::Files,
            })),
        ),
        (
            "control.project_changed.git",
            control(ControlMessage::ProjectChanged(ProjectChanged {
                project_slug: s(PROJECT),
                what: ProjectPart::Git,
            })),
        ),
        (
            "control.attention",
            control(ControlMessage::Attention(Attention {
                id: s("run:0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78"),
                kind: AttentionKind::Finished,
                project_slug: s(PROJECT),
                session_id: s(ROOT_CHAT),
                job_id: Some(s("0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78")),
                origin: Origin::Scheduled,
                title: s("Nightly backup check"),
                body: s("Scheduled run finished"),
                at: s("2026-11-02T02:01:40Z"),
            })),
        ),
        (
            "control.attention.approval",
            control(ControlMessage::Attention(Attention {
                id: s("approval:apr_5c1e9a"),
                kind: AttentionKind::Approval,
                project_slug: s(PROJECT),
                session_id: s(CHILD),
                job_id: Some(s(JOB)),
                origin: Origin::Spawned,
                title: s("Investigate cookie refresh race"),
                body: s("Bash needs your approval: npm test -- cookie"),
                at: s("2026-11-03T09:15:02Z"),
            })),
        ),
        (
            "control.attention.overlap",
            control(ControlMessage::Attention(Attention {
                id: s("overlap:5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90|a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68"),
                kind: AttentionKind::Overlap,
                project_slug: s(PROJECT),
                session_id: s(CHILD),
                job_id: None,
                origin: Origin::Spawned,
                title: s("Investigate cookie refresh race"),
                body: s(
                    "Changed the same files as chat 5f0c2d8e (Fix the cookie refresh race): src/auth/cookie.ts",
                ),
                at: s("2026-11-03T09:16:40Z"),
            })),
        ),
        (
            "control.chats_changed",
            control(ControlMessage::ChatsChanged(ChatsChanged {
                project_slug: s(PROJECT),
                session_id: Some(s(CHILD)),
            })),
        ),
        (
            "control.daemon_stopping",
            control(ControlMessage::Stopping(Stopping {
                reason: StopReason::Requested,
                message: s("paddockd was stopped (paddock daemon stop)"),
            })),
        ),
        (
            "control.daemon_stopping.signal",
            control(ControlMessage::Stopping(Stopping {
                reason: StopReason::Signal,
                message: s("paddockd was stopped by a signal (SIGTERM)"),
            })),
        ),
        (
            "control.chats_changed.root",
            control(ControlMessage::ChatsChanged(ChatsChanged {
                project_slug: s(ROOT),
                session_id: None,
            })),
        ),
        (
            "error.malformed_frame",
            control(ControlMessage::Error(ConnectionError {
                error: ErrorBody::new(
                    ErrorCode::MalformedFrame,
                    "The line is not a valid message: expected `,` or `}` at line 1 column 42. The connection stays open.",
                ),
            })),
        ),
        (
            "error.malformed_frame.with_id",
            err(
                21,
                ErrorCode::MalformedFrame,
                "unknown variant `chat:archive`, expected one of `hello`, `ping`, `chat:send`, `chat:command`, `chat:cancel`, `chat:subscribe`, `chat:unsubscribe`, `chat:set_queue`, `chat:continue`, `chat:list`, `chat:transcript`, `project:list`, `project:create`, `daemon:status`, `daemon:shutdown`",
            ),
        ),
        (
            "error.frame_too_large",
            control(ControlMessage::Error(ConnectionError {
                error: ErrorBody::new(
                    ErrorCode::FrameTooLarge,
                    "A line of 9437190 bytes exceeds the 8388608-byte limit and was discarded. The connection stays open.",
                ),
            })),
        ),
        // --- replies ---------------------------------------------------------------------
        (
            "reply.hello",
            ok(
                1,
                Reply::Hello(HelloReply {
                    protocol_version: PROTOCOL_VERSION,
                    daemon_version: s("0.1.0"),
                    pid: 48213,
                    user: s("ana"),
                }),
            ),
        ),
        ("reply.pong", ok(2, Reply::Pong)),
        (
            "reply.sent",
            ok(
                3,
                Reply::Sent(Sent {
                    project_slug: s(PROJECT),
                    session_id: s(SESSION),
                    job_id: s(JOB),
                    queued: false,
                }),
            ),
        ),
        (
            "reply.sent.queued",
            ok(
                4,
                Reply::Sent(Sent {
                    project_slug: s(ROOT),
                    session_id: s(ROOT_CHAT),
                    job_id: s("0193f4b7-3e5d-7c21-a4f8-9b0d2e6c1a35"),
                    queued: true,
                }),
            ),
        ),
        (
            "reply.cancelled",
            ok(6, Reply::Cancelled(Cancelled { was_running: true })),
        ),
        (
            "reply.subscribed",
            ok(
                7,
                Reply::Subscribed(Subscribed {
                    session_id: s(SESSION),
                    running: true,
                    job_id: Some(s(JOB)),
                    replayed: 3,
                    next_seq: 45,
                }),
            ),
        ),
        ("reply.ack", ok(9, Reply::Ack)),
        (
            "reply.chats",
            ok(
                13,
                Reply::Chats(Chats {
                    chats: vec![
                        ChatSummary {
                            running: true,
                            unread: false,
                            queued: Some(s("When you are done, run the whole suite once more.")),
                            interrupted: false,
                            interrupted_reason: None,
                            waiting_approval: false,
                            waiting_process: false,
                            failed: false,
                            parked: None,
                            status: None,
                            ..chat_summary()
                        },
                        ChatSummary {
                            session_id: s(CHILD),
                            project_slug: s(PROJECT),
                            title: s("Investigate cookie refresh race"),
                            origin: Origin::Spawned,
                            depth: 1,
                            parent_session_id: Some(s(SESSION)),
                            parent_project: Some(s(PROJECT)),
                            created_at: Some(s("2026-11-03T09:13:55Z")),
                            updated_at: Some(s("2026-11-03T09:14:48Z")),
                            model: Some(s("claude-sonnet-4-5")),
                            message_count: 4,
                            running: false,
                            unread: true,
                            archived: false,
                            starred: false,
                            detached: false,
                            fork: false,
                            worktree: None,
                            overlaps: vec![],
                            trigger: None,
                            tree_parent: Some(s(SESSION)),
                            level: 1,
                            children: vec![],
                            usage: None,
                            queued: None,
                            interrupted: false,
                            interrupted_reason: None,
                            waiting_approval: false,
                            waiting_process: false,
                            failed: false,
                            parked: None,
                            status: None,
                        },
                    ],
                    ..Chats::default()
                }),
            ),
        ),
        (
            "reply.chats.root",
            ok(
                14,
                Reply::Chats(Chats {
                    chats: vec![ChatSummary {
                        session_id: s(ROOT_CHAT),
                        project_slug: s(ROOT),
                        title: s("Nightly backup check"),
                        origin: Origin::Scheduled,
                        depth: 0,
                        parent_session_id: None,
                        parent_project: None,
                        created_at: Some(s("2026-11-02T02:00:01Z")),
                        updated_at: Some(s("2026-11-02T02:01:37Z")),
                        model: None,
                        message_count: 2,
                        running: false,
                        unread: true,
                        archived: true,
                        starred: false,
                        detached: false,
                        fork: false,
                        worktree: None,
                        overlaps: vec![],
                        trigger: Some(s("nightly-backup")),
                        tree_parent: None,
                        level: 0,
                        children: vec![],
                        usage: None,
                        queued: None,
                        interrupted: true,
                        interrupted_reason: Some(s("paddockd was stopped while it ran")),
                        waiting_approval: false,
                        waiting_process: false,
                        failed: false,
                        parked: Some(s(
                            "You've hit your session limit · resets 3pm (Europe/Berlin)",
                        )),
                        status: None,
                    }],
                    ..Chats::default()
                }),
            ),
        ),
        (
            "reply.chats.origins",
            ok(
                15,
                Reply::Chats(Chats {
                    chats: vec![
                        ChatSummary {
                            session_id: s(HOOK_CHAT),
                            project_slug: s(PROJECT),
                            title: s("Triage CI failure on main"),
                            origin: Origin::Hook,
                            depth: 0,
                            parent_session_id: None,
                            parent_project: None,
                            created_at: Some(s("2026-11-03T07:41:09Z")),
                            updated_at: Some(s("2026-11-03T07:44:30Z")),
                            model: None,
                            message_count: 3,
                            running: false,
                            unread: false,
                            archived: false,
                            starred: false,
                            detached: false,
                            fork: false,
                            worktree: None,
                            overlaps: vec![],
                            trigger: Some(s("ci-failed")),
                            tree_parent: None,
                            level: 0,
                            children: vec![],
                            usage: None,
                            queued: None,
                            interrupted: false,
                            interrupted_reason: None,
                            waiting_approval: false,
                            waiting_process: false,
                            failed: false,
                            parked: None,
                            status: None,
                        },
                        ChatSummary {
                            session_id: s("9e1a5c3f-2b7d-4f08-8c6e-0a4d2f9b1e57"),
                            project_slug: s(PROJECT),
                            title: s("Add rate limiting to the API"),
                            origin: Origin::Adopted,
                            depth: 0,
                            parent_session_id: None,
                            parent_project: None,
                            created_at: Some(s("2026-10-28T16:20:11Z")),
                            updated_at: Some(s("2026-10-28T17:02:45Z")),
                            model: Some(s("claude-opus-4-1")),
                            message_count: 38,
                            running: false,
                            unread: false,
                            archived: false,
                            starred: false,
                            detached: true,
                            fork: false,
                            worktree: None,
                            overlaps: vec![],
                            trigger: None,
                            tree_parent: None,
                            level: 0,
                            children: vec![],
                            usage: None,
                            queued: None,
                            interrupted: false,
                            interrupted_reason: None,
                            waiting_approval: false,
                            waiting_process: false,
                            failed: false,
                            parked: None,
                            status: None,
                        },
                    ],
                    ..Chats::default()
                }),
            ),
        ),
        (
            "reply.chats.delta",
            ok(
                80,
                Reply::Chats(Chats {
                    chats: vec![ChatSummary {
                        updated_at: Some(s("2026-11-03T09:16:21Z")),
                        message_count: 8,
                        running: false,
                        unread: true,
                        status: Some(s("The race is fixed; the suite passed 50 runs in a row.")),
                        ..chat_summary()
                    }],
                    revision: Some(1_764_477_600_000_057),
                    delta: true,
                    removed: vec![s(HOOK_CHAT)],
                    after: vec![None],
                }),
            ),
        ),
        (
            "reply.transcript",
            transcript(
                16,
                vec![
                    TranscriptEntry::User {
                        uuid: Some(s(MESSAGE)),
                        timestamp: Some(s("2026-11-03T09:12:40Z")),
                        text: s(
                            "The login test fails about one run in five. Find out why and fix it.",
                        ),
                        attribution: None,
                    },
                    TranscriptEntry::Assistant {
                        uuid: Some(s("7d3f9a1b-2c4e-4b6d-8f0a-1e3c5b7d9f2a")),
                        timestamp: Some(s("2026-11-03T09:12:44Z")),
                        text: s("Let me look at the test first."),
                        model: Some(s("claude-sonnet-4-5")),
                    },
                ],
            ),
        ),
        (
            "transcript.user",
            transcript(
                16,
                vec![TranscriptEntry::User {
                    uuid: Some(s("f4a2c8e1-9b3d-4f6a-8e0c-2d5b7a9c1e38")),
                    timestamp: Some(s("2026-11-03T09:15:02Z")),
                    text: s(
                        "Report from the child chat: the race is in the cookie refresh; fix pushed on branch fix/login-race.",
                    ),
                    attribution: Some(Attribution::Sent {
                        from_session_id: s(CHILD),
                        from_project: s(PROJECT),
                        from_title: Some(s("Investigate cookie refresh race")),
                    }),
                }],
            ),
        ),
        (
            "transcript.assistant",
            transcript(
                16,
                vec![TranscriptEntry::Assistant {
                    uuid: Some(s("b9d1e3f5-7a2c-4e8b-9d0f-3c5e7a1b2d46")),
                    timestamp: Some(s("2026-11-03T09:15:20Z")),
                    text: s(
                        "The child chat found it: the refresh handler and the test both write the cookie. I merged its fix and the test now passes 50 runs in a row.",
                    ),
                    model: Some(s("claude-sonnet-4-5")),
                }],
            ),
        ),
        (
            "transcript.thinking",
            transcript(
                16,
                vec![TranscriptEntry::Thinking {
                    text: s("A one-in-five failure smells like a race on the session cookie."),
                }],
            ),
        ),
        (
            "transcript.tool_use",
            transcript(
                16,
                vec![TranscriptEntry::ToolUse {
                    tool_use_id: s("toolu_01Qm4TzR8vXc2NbLw6YhKs3D"),
                    name: s("Bash"),
                    input: json!({
                        "command": "npx playwright test tests/login.spec.ts --repeat-each=50",
                        "description": "Run the login test 50 times"
                    }),
                }],
            ),
        ),
        (
            "transcript.tool_result",
            transcript(
                16,
                vec![TranscriptEntry::ToolResult {
                    tool_use_id: s("toolu_01Qm4TzR8vXc2NbLw6YhKs3D"),
                    output: s("Running 50 tests using 4 workers\n\n  50 passed (38.2s)"),
                    is_error: false,
                }],
            ),
        ),
        (
            "transcript.compaction",
            transcript(
                16,
                vec![TranscriptEntry::Compaction {
                    pre_tokens: Some(171_408),
                    post_tokens: Some(9_215),
                }],
            ),
        ),
        (
            "transcript.interrupted",
            transcript(
                16,
                vec![TranscriptEntry::Interrupted {
                    text: s("the turn was stopped before it finished"),
                }],
            ),
        ),
        (
            "transcript.api_error",
            transcript(
                16,
                vec![TranscriptEntry::ApiError {
                    status: Some(529),
                    text: s(
                        "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
                    ),
                }],
            ),
        ),
        (
            "reply.projects",
            ok(
                17,
                Reply::Projects(Projects {
                    projects: vec![
                        ProjectInfo {
                            slug: s(ROOT),
                            path: s("/home/ana/.local/share/paddock/projects/_root"),
                            created_at: None,
                            ..Default::default()
                        },
                        ProjectInfo {
                            slug: s(PROJECT),
                            path: s("/home/ana/src/webapp"),
                            created_at: Some(s("2026-10-30T11:05:00Z")),
                            ..Default::default()
                        },
                    ],
                }),
            ),
        ),
        (
            "reply.project",
            ok(
                18,
                Reply::Project(ProjectInfo {
                    slug: s(PROJECT),
                    path: s("/home/ana/src/webapp"),
                    created_at: Some(s("2026-11-03T09:30:12Z")),
                    ..Default::default()
                }),
            ),
        ),
        (
            "reply.project.repo",
            ok(
                90,
                Reply::Project(ProjectInfo {
                    slug: s(PROJECT),
                    path: s("/home/ana/.local/share/paddock/projects/webapp/webapp"),
                    created_at: Some(s("2026-11-03T09:30:12Z")),
                    name: Some(s("Web App")),
                    summary: Some(s("The customer-facing web app")),
                    area: Some(s("Work")),
                    status: Some(ProjectStatus::Active),
                    repo: Some(s("https://github.com/ana/webapp.git")),
                    model: None,
                    drive_mode: None,
                    max_spawn_depth: None,
                    allowed_tools: vec![s("Read"), s("Bash(npm test:*)"), s("Edit(src/**)")],
                    reach: Vec::new(),
                    shadowed_by: None,
                isolation: None,
}),
            ),
        ),
        (
            "reply.project_deleted",
            ok(
                92,
                Reply::ProjectDeleted(ProjectDeleted {
                    slug: s("scratch"),
                    path: s("/home/ana/.local/share/paddock/projects/scratch"),
                    path_kept: false,
                    moved_to: Some(s(
                        "/home/ana/.local/share/paddock/trash/scratch-20261103T093500Z",
                    )),
                    chats: 4,
                    triggers: 1,
                    cancelled_turns: 1,
                    done: vec![
                        s("Interrupted 1 running turn."),
                        s("Moved /home/ana/.local/share/paddock/projects/scratch (its files, 4 chats, OVERVIEW.md and project.toml with 1 trigger) to /home/ana/.local/share/paddock/trash/scratch-20261103T093500Z; move it back to restore the project."),
                    ],
                }),
            ),
        ),
        (
            "reply.project_overview",
            ok(
                94,
                Reply::ProjectOverview(Box::new(ProjectOverview {
                    project: ProjectInfo {
                        slug: s(PROJECT),
                        path: s("/home/ana/src/webapp"),
                        created_at: Some(s("2026-10-30T11:05:00Z")),
                        summary: Some(s("The customer-facing web app")),
                        status: Some(ProjectStatus::Active),
                        ..Default::default()
                    },
                    overview: Some(s(
                        "# Web App\n\nNext.js front end for the customer portal. Login uses a refresh cookie (`src/auth/cookie.ts`).\n",
                    )),
                    overview_truncated: false,
                    changelog: Some(s(
                        "## 2026-11-03\n\n- Fixed the flaky login test: the refresh now allows for clock skew.\n",
                    )),
                    changelog_truncated: false,
                    chats: 12,
                    running: 1,
                    unread: 2,
                    swept_at: Some(s("2026-11-03T09:20:41Z")),
                    sweep_error: None,
                })),
            ),
        ),
        (
            "reply.project_overview.sweep_failed",
            ok(
                95,
                Reply::ProjectOverview(Box::new(ProjectOverview {
                    project: ProjectInfo {
                        slug: s(PROJECT),
                        path: s("/home/ana/src/webapp"),
                        created_at: Some(s("2026-10-30T11:05:00Z")),
                        ..Default::default()
                    },
                    chats: 12,
                    running: 0,
                    unread: 1,
                    swept_at: Some(s("2026-11-03T18:35:02Z")),
                    sweep_error: Some(s("the reply was not used (nothing written): the marker <<<OVERVIEW>>> is missing")),
                    ..Default::default()
                })),
            ),
        ),
        (
            "reply.status",
            ok(
                19,
                Reply::Status(DaemonStatus {
                    daemon_version: s("0.1.0"),
                    protocol_version: PROTOCOL_VERSION,
                    pid: 48213,
                    uptime_secs: 7342,
                    socket: s("/run/user/1000/paddock/paddockd.sock"),
                    data_dir: s("/home/ana/.local/share/paddock"),
                    running: vec![RunningTurn {
                        project_slug: s(PROJECT),
                        session_id: s(SESSION),
                        job_id: s(JOB),
                        started_at: s("2026-11-03T09:12:40Z"),
                    }],
                    live_processes: 3,
                    max_processes: 8,
                    queued_turns: 0,
                    spares: vec![SpareProcess {
                        project_slug: s(PROJECT),
                        ready: true,
                        worktree: true,
                    }],
                    clients: 2,
                    agent_clients: 2,
                    low_disk: vec![DiskSpace {
                        path: s("/home/ana/.local/share/paddock"),
                        free_bytes: 3_145_728,
                        floor_bytes: 268_435_456,
                    }],
                }),
            ),
        ),
        (
            "reply.info",
            ok(
                22,
                Reply::Info(Box::new(DaemonInfo {
                    daemon_version: s("0.1.0"),
                    pid: Some(48213),
                    socket: s("/run/user/1000/paddock/paddockd.sock"),
                    data_dir: s("/home/ana/.local/share/paddock"),
                    log: s("/home/ana/.local/state/paddock/paddockd.log"),
                    claude_home: s("/home/ana/.local/share/paddock/claude-home"),
                    claude: ClaudeInfo {
                        configured: s("claude"),
                        path: Some(s("/home/ana/.npm-global/bin/claude")),
                        version: Some(s("2.1.332")),
                        error: None,
                        min_version: s("2.1.197"),
                        supported: Some(true),
                    },
                    credentials: vec![s("ANTHROPIC_API_KEY")],
                    login: None,
                    disks: vec![DiskSpace {
                        path: s("/home/ana/.local/share/paddock"),
                        free_bytes: 41_875_931_136,
                        floor_bytes: 268_435_456,
                    }],
                })),
            ),
        ),
        (
            "reply.resolved",
            ok(
                23,
                Reply::Resolved(Resolved {
                    prefixes: vec![
                        ResolvedPrefix {
                            prefix: s("5f0c2d8e"),
                            chats: vec![ResolvedChat {
                                session_id: s("5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90"),
                                project_slug: s("webapp"),
                                title: s("Fix the login redirect"),
                            }],
                            more: 0,
                        },
                        ResolvedPrefix {
                            prefix: s("a1b2"),
                            chats: vec![
                                ResolvedChat {
                                    session_id: s("a1b2c3d4-0000-4000-8000-000000000001"),
                                    project_slug: s(""),
                                    title: s("Notes"),
                                },
                                ResolvedChat {
                                    session_id: s("a1b2ffee-0000-4000-8000-000000000002"),
                                    project_slug: s("webapp"),
                                    title: s("Release checklist"),
                                },
                            ],
                            more: 0,
                        },
                    ],
                }),
            ),
        ),
        (
            "reply.info.no_claude",
            ok(
                22,
                Reply::Info(Box::new(DaemonInfo {
                    daemon_version: s("0.1.0"),
                    pid: Some(48213),
                    socket: s("/run/user/1000/paddock/paddockd.sock"),
                    data_dir: s("/home/ana/.local/share/paddock"),
                    log: s("/home/ana/.local/state/paddock/paddockd.log"),
                    claude_home: s("/home/ana/.local/share/paddock/claude-home"),
                    claude: ClaudeInfo {
                        configured: s("/nonexistent/claude"),
                        path: None,
                        version: None,
                        error: Some(s("/nonexistent/claude does not exist")),
                        min_version: s("2.1.197"),
                        supported: None,
                    },
                    credentials: vec![],
                    login: Some(s("/home/ana/.local/share/paddock/claude-home/.credentials.json")),
                    disks: vec![],
                })),
            ),
        ),
        (
            "reply.updated",
            ok(21, Reply::Updated(Updated { changed: 2, notes: Vec::new() })),
        ),
        (
            "reply.triggers",
            ok(
                40,
                Reply::Triggers(Triggers {
                    triggers: vec![
                        TriggerInfo {
                            project_slug: s(ROOT),
                            next_fire: Some(s("2026-11-04T01:00:00Z")),
                            last_fire: Some(s("2026-11-03T01:00:00Z")),
                            last_status: Some(RunStatus::Completed),
                            session_id: Some(s(ROOT_CHAT)),
                            ..trigger_info("nightly-backup", schedule_spec())
                        },
                        trigger_info(
                            "ci-failed",
                            hook_spec(HookEvent::Manual, "Triage the failing CI run."),
                        ),
                        trigger_info(
                            "review",
                            hook_spec(HookEvent::TurnCompleted, "Review what was just done."),
                        ),
                        TriggerInfo {
                            last_fire: Some(s("2026-11-03T07:41:09Z")),
                            last_status: Some(RunStatus::Skipped),
                            ..trigger_info(
                                "retry",
                                hook_spec(HookEvent::TurnFailed, "Find out why it failed."),
                            )
                        },
                        trigger_info(
                            "children",
                            hook_spec(
                                HookEvent::ChildFinished,
                                "A sub-task finished: integrate it.",
                            ),
                        ),
                        trigger_info(
                            "on-archive",
                            hook_spec(
                                HookEvent::Archived,
                                "Note in CHANGELOG.md what the archived chat concluded.",
                            ),
                        ),
                        TriggerInfo {
                            problem: Some(s("unknown time zone \"Mars/Olympus\"")),
                            ..trigger_info(
                                "docs-changed",
                                TriggerSpec {
                                    kind: TriggerKind::Schedule,
                                    cron: Some(s("*/5 * * * *")),
                                    timezone: Some(s("Mars/Olympus")),
                                    on: None,
                                    ..hook_spec(HookEvent::FileChanged, "Check the docs.")
                                },
                            )
                        },
                    ],
                }),
            ),
        ),
        (
            "reply.trigger",
            ok(
                41,
                Reply::Trigger(Box::new(TriggerInfo {
                    project_slug: s(ROOT),
                    next_fire: Some(s("2026-11-04T01:00:00Z")),
                    ..trigger_info("nightly-backup", schedule_spec())
                })),
            ),
        ),
        (
            "reply.fired",
            ok(
                45,
                Reply::Fired(Fired {
                    session_id: Some(s(HOOK_CHAT)),
                    skipped: None,
                }),
            ),
        ),
        (
            "reply.fired.skipped",
            ok(
                46,
                Reply::Fired(Fired {
                    session_id: None,
                    skipped: Some(s("its previous run is still going")),
                }),
            ),
        ),
        (
            "reply.approvals",
            ok(
                50,
                Reply::Approvals(Approvals {
                    approvals: vec![
                        Approval {
                            id: s("apr_01"),
                            project_slug: s(PROJECT),
                            session_id: s(CHILD),
                            job_id: s(JOB),
                            title: s("Investigate cookie refresh race"),
                            origin: Origin::Spawned,
                            depth: 1,
                            tool: s("Bash"),
                            input: json!({"command": "npm test -- auth > build/test.log", "description": "Run the auth tests"}),
                            preview: Some(s("$ npm test -- auth > build/test.log")),
                            asked_at: s("2026-11-03T09:14:02Z"),
                            always_rules: vec![s("Bash(npm test:*)"), s("Write(build/**)")],
                            always_why_not: None,
                            kind: ApprovalKind::Tool,
                        },
                        Approval {
                            id: s("apr_02"),
                            project_slug: s(ROOT),
                            session_id: s(ROOT_CHAT),
                            job_id: s("0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78"),
                            title: s("Nightly backup check"),
                            origin: Origin::Scheduled,
                            depth: 0,
                            tool: s("Edit"),
                            input: json!({"file_path": "/srv/backup/check.sh", "old_string": "retries=1", "new_string": "retries=3"}),
                            preview: Some(s("/srv/backup/check.sh (outside the project)\n- retries=1\n+ retries=3")),
                            asked_at: s("2026-11-02T02:00:41Z"),
                            always_rules: vec![s("Edit(/srv/backup/check.sh)")],
                            always_why_not: None,
                            kind: ApprovalKind::Tool,
                        },
                        Approval {
                            id: s("apr_03"),
                            project_slug: s(PROJECT),
                            session_id: s(CHILD),
                            job_id: s(JOB),
                            title: s("Investigate cookie refresh race"),
                            origin: Origin::Spawned,
                            depth: 1,
                            tool: s("Bash"),
                            input: json!({"command": "kill $(cat server.pid)"}),
                            preview: Some(s("$ kill $(cat server.pid)")),
                            asked_at: s("2026-11-03T09:15:10Z"),
                            always_rules: vec![],
                            always_why_not: Some(s("paddock cannot judge this command before it runs: it runs a command substitution ($(…), `…` or <(…))")),
                            kind: ApprovalKind::Tool,
                        },
                    ],
                }),
            ),
        ),
        (
            "reply.approvals.cap",
            ok(
                51,
                Reply::Approvals(Approvals {
                    approvals: vec![Approval {
                        id: s("apr_03"),
                        project_slug: s(PROJECT),
                        session_id: s(CHILD),
                        job_id: s(JOB),
                        title: s("Investigate cookie refresh race"),
                        origin: Origin::Spawned,
                        depth: 1,
                        tool: s("mcp__paddock_manage__create_chat"),
                        input: json!({"prompt": "Look at the retry path"}),
                        preview: Some(s(
                            "paused: the tree hit its cap (20 chats created in the last minute, limit 20)",
                        )),
                        asked_at: s("2026-11-03T09:15:40Z"),
                        always_rules: vec![],
                        always_why_not: Some(s("a cap is lifted for this call, not by a rule")),
                        kind: ApprovalKind::Cap,
                    }],
                }),
            ),
        ),
        (
            "reply.provenance",
            ok(
                60,
                Reply::Provenance(Box::new(Provenance {
                    project_slug: s(PROJECT),
                    path: s("src/auth/cookie.ts"),
                    status: FileStatus::Current,
                    status_reason: s(
                        "the bytes on disk match the hash recorded when Edit wrote it",
                    ),
                    current_hash: Some(s(
                        "sha256:9f2c4e1a7b3d5f6081a2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4",
                    )),
                    producers: vec![FileStep {
                        session_id: s(CHILD),
                        job_id: s(JOB),
                        step_id: s("0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67:3"),
                        title: Some(s("Investigate cookie refresh race")),
                        tool: s("Edit"),
                        at: s("2026-11-03T09:14:31Z"),
                        edge: FileEdge::Observed,
                        change: s("wrote"),
                        hash: Some(s(
                            "sha256:9f2c4e1a7b3d5f6081a2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4",
                        )),
                        environment: Some(s("5b1f0e7c2a9d4c38e6f1a0b7d2c5e8f9a1b4c7d0e3f6a9b2c5d8e1f4a7b0c3d6")),
                        model: None,
                        specialist: None,
                    }],
                    readers: vec![FileStep {
                        session_id: s(CHILD),
                        job_id: s(JOB),
                        step_id: s("0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67:1"),
                        title: Some(s("Investigate cookie refresh race")),
                        tool: s("Read"),
                        at: s("2026-11-03T09:14:05Z"),
                        edge: FileEdge::Observed,
                        change: s("read"),
                        hash: Some(s(
                            "sha256:41d7a0c3e5b2f4a6c8e0d2b4f6a8c0e2d4b6f8a0c2e4d6b8f0a2c4e6d8b0f2a4",
                        )),
                        environment: Some(s("5b1f0e7c2a9d4c38e6f1a0b7d2c5e8f9a1b4c7d0e3f6a9b2c5d8e1f4a7b0c3d6")),
                        model: None,
                        specialist: None,
                    }],
                    lineage: Lineage {
                        nodes: vec![
                            LineageNode {
                                path: s("src/auth/cookie.ts"),
                                hops: 0,
                                producer: Some(FileStep {
                                    session_id: s(CHILD),
                                    job_id: s(JOB),
                                    step_id: s("0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67:3"),
                                    title: Some(s("Investigate cookie refresh race")),
                                    tool: s("Edit"),
                                    at: s("2026-11-03T09:14:31Z"),
                                    edge: FileEdge::Observed,
                                    change: s("wrote"),
                                    hash: None,
                                    environment: Some(s("5b1f0e7c2a9d4c38e6f1a0b7d2c5e8f9a1b4c7d0e3f6a9b2c5d8e1f4a7b0c3d6")),
                                    model: None,
                                    specialist: None,
                                }),
                                inputs: vec![s("tests/login.spec.ts")],
                                missing_origin: false,
                                changed_since_use: false,
                            },
                            LineageNode {
                                path: s("tests/login.spec.ts"),
                                hops: 1,
                                producer: None,
                                inputs: vec![],
                                missing_origin: true,
                                changed_since_use: true,
                            },
                        ],
                        truncated: false,
                    },
                    notes: vec![],
                    environments: vec![Environment {
                        hash: s("5b1f0e7c2a9d4c38e6f1a0b7d2c5e8f9a1b4c7d0e3f6a9b2c5d8e1f4a7b0c3d6"),
                        git_head: Some(s("3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39")),
                        toolchains: [
                            (s("node"), s("v22.11.0")),
                            (s("python3"), s("Python 3.12.7")),
                        ]
                        .into_iter()
                        .collect(),
                        lockfiles: [(
                            s("package-lock.json"),
                            s("sha256:c4e6a8b0d2f4c6e8a0b2d4f6c8e0a2b4d6f8c0e2a4b6d8f0c2e4a6b8d0f2c4e6"),
                        )]
                        .into_iter()
                        .collect(),
                        os: s("linux x86_64"),
                        os_name: Some(s("Ubuntu 24.04.1 LTS")),
                    }],
                })),
            ),
        ),
        (
            "reply.touched",
            ok(
                62,
                Reply::Touched(Touched {
                    project_slug: s(PROJECT),
                    session_id: s(CHILD),
                    turns: vec![TouchedTurn {
                        project_slug: None,
                        prompt: None,
                        job_id: s(JOB),
                        started_at: s("2026-11-03T09:14:02Z"),
                        files: vec![
                            TouchedFile {
                                path: s("src/auth/cookie.ts"),
                                role: FileRole::Write,
                                edge: FileEdge::Observed,
                                change: s("wrote"),
                                tool: s("Edit"),
                                status: Some(FileStatus::Current),
                                specialist: None,
                            },
                            TouchedFile {
                                path: s("tests/cookie-race.spec.ts"),
                                role: FileRole::Write,
                                edge: FileEdge::Observed,
                                change: s("wrote"),
                                tool: s("Write"),
                                status: Some(FileStatus::Unverified),
                                specialist: Some(Specialist {
                                    agent_id: s("abb2fcc5ce70e42c4"),
                                    name: s("general-purpose"),
                                    description: Some(s("Write a regression test")),
                                    model: Some(s("claude-sonnet-4-5")),
                                }),
                            },
                            TouchedFile {
                                path: s("tests/login.spec.ts"),
                                role: FileRole::Read,
                                edge: FileEdge::Observed,
                                change: s("read"),
                                tool: s("Read"),
                                status: None,
                                specialist: None,
                            },
                        ],
                    }],
                    notes: vec![],
                }),
            ),
        ),
        (
            "reply.search_results",
            ok(
                90,
                Reply::SearchResults(SearchResults {
                    query: s("cookie \"refresh race\""),
                    hits: vec![SearchHit {
                        project_slug: s(PROJECT),
                        session_id: s(CHILD),
                        title: s("Investigate cookie refresh race"),
                        updated_at: s("2026-11-03T09:20:11Z"),
                        archived: false,
                        matches: vec![
                            SearchMatch {
                                field: SearchField::Title,
                                entry: None,
                                uuid: None,
                                snippet: s("Investigate cookie refresh race"),
                                highlights: vec![[12, 18], [19, 31]],
                            },
                            SearchMatch {
                                field: SearchField::Assistant,
                                entry: Some(7),
                                uuid: Some(s("6f1c2a9e-4b7d-4e0a-9c3f-8d2e5b1a7c40")),
                                snippet: s("…the cookie refresh race happens when two tabs refresh at once…"),
                                highlights: vec![[5, 11], [12, 24]],
                            },
                        ],
                        more: 3,
                    }],
                    total: 1,
                    indexing: None,
                }),
            ),
        ),
        (
            "reply.search_results.indexing",
            ok(
                91,
                Reply::SearchResults(SearchResults {
                    query: s("postgres"),
                    hits: vec![],
                    total: 0,
                    indexing: Some(SearchProgress {
                        done: 2400,
                        total: 10000,
                    }),
                }),
            ),
        ),
        (
            "reply.attachment",
            ok(
                95,
                Reply::Attachment(Attachment {
                    id: s("3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c.log"),
                    file_kind: s("text"),
                    size: 36,
                    data: s("ZXJyb3I6IGNhbm5vdCBmaW5kIG1vZHVsZSAnLi9hcHAnCg=="),
                }),
            ),
        ),
        (
            "reply.blame",
            ok(
                63,
                Reply::Blame(Box::new(Blame {
                    project_slug: s(PROJECT),
                    path: s("src/auth/cookie.ts"),
                    lines: vec![
                        s("import { now } from './clock';"),
                        s("export function refresh(session: Session) {"),
                        s("  if (session.expiresAt <= now() + SKEW_MS) {"),
                        s("    // refreshed by hand"),
                    ],
                    regions: vec![
                        BlameRegion {
                            start: 1,
                            end: 2,
                            by: BlameSource::Commit(BlameCommit {
                                sha: s("3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"),
                                summary: s("Add cookie refresh"),
                                author: s("Ana Lima"),
                                at: s("2026-10-28T16:02:11Z"),
                            }),
                        },
                        BlameRegion {
                            start: 3,
                            end: 3,
                            by: BlameSource::Step(Box::new(FileStep {
                                session_id: s(CHILD),
                                job_id: s(JOB),
                                step_id: s("0193f4c2-7a1e-7c3d-9b2a-5e8f1d0c4a67:3"),
                                title: Some(s("Investigate cookie refresh race")),
                                tool: s("Edit"),
                                at: s("2026-11-03T09:14:31Z"),
                                edge: FileEdge::Observed,
                                change: s("wrote"),
                                hash: None,
                                environment: None,
                                model: Some(s("claude-sonnet-4-5")),
                                specialist: None,
                            })),
                        },
                        BlameRegion {
                            start: 4,
                            end: 4,
                            by: BlameSource::Unknown,
                        },
                    ],
                    notes: vec![],
                })),
            ),
        ),
        (
            "reply.file_listing",
            ok(
                64,
                Reply::FileListing(FileListing {
                    project_slug: s(PROJECT),
                    path: s("src/auth"),
                    entries: vec![
                        FileEntry {
                            name: s("providers"),
                            dir: true,
                            symlink: false,
                            outside: false,
                            size: 0,
                            mtime: Some(s("2026-11-03T09:12:40Z")),
                        },
                        FileEntry {
                            name: s("cookie.ts"),
                            dir: false,
                            symlink: false,
                            outside: false,
                            size: 2_417,
                            mtime: Some(s("2026-11-03T09:14:31Z")),
                        },
                        FileEntry {
                            name: s("secrets.env"),
                            dir: false,
                            symlink: true,
                            outside: true,
                            size: 0,
                            mtime: None,
                        },
                    ],
                    truncated: false,
                }),
            ),
        ),
        (
            "reply.file_text",
            ok(
                65,
                Reply::FileText(FileText {
                    project_slug: s(PROJECT),
                    path: s("src/auth/cookie.ts"),
                    size: 2_417,
                    mtime: Some(s("2026-11-03T09:14:31Z")),
                    text: s("export const COOKIE_NAME = \"session\";\n"),
                    binary: false,
                    truncated: true,
                }),
            ),
        ),
        (
            "reply.git_status",
            ok(
                70,
                Reply::GitStatus(GitStatus {
                    project_slug: s(PROJECT),
                    is_repo: true,
                    branch: Some(s("main")),
                    head: Some(s("3f9a2c1")),
                    upstream: Some(s("origin/main")),
                    ahead: Some(1),
                    behind: Some(0),
                    files: vec![
                        GitFile {
                            path: s("src/auth/cookie.ts"),
                            orig_path: None,
                            index: s("."),
                            worktree: s("M"),
                        },
                        GitFile {
                            path: s("tests/cookie-race.spec.ts"),
                            orig_path: None,
                            index: s("?"),
                            worktree: s("?"),
                        },
                    ],
                    hidden: 3,
                    notes: vec![],
                    worktrees: vec![WorktreeEntry {
                        session_id: s(CHILD),
                        project_slug: s(PROJECT),
                        title: Some(s("Fix the cookie refresh race")),
                        orphan: false,
                        worktree: worktree_example(),
                        overlaps: vec![],
                    }],
                }),
            ),
        ),
        (
            "reply.git_status.not_repo",
            ok(
                71,
                Reply::GitStatus(GitStatus {
                    project_slug: s(PROJECT),
                    is_repo: false,
                    branch: None,
                    head: None,
                    upstream: None,
                    ahead: None,
                    behind: None,
                    files: vec![],
                    hidden: 0,
                    notes: vec![],
                    worktrees: vec![],
                }),
            ),
        ),
        (
            "reply.git_diff",
            ok(
                72,
                Reply::GitDiff(GitDiff {
                    project_slug: s(PROJECT),
                    is_repo: true,
                    diff: s(
                        "diff --git a/src/auth/cookie.ts b/src/auth/cookie.ts\nindex 1c2d3e4..5f6a7b8 100644\n--- a/src/auth/cookie.ts\n+++ b/src/auth/cookie.ts\n@@ -12 +12 @@ export function refresh(session: Session) {\n-  if (session.expiresAt < now()) {\n+  if (session.expiresAt <= now() + SKEW_MS) {\n",
                    ),
                    files: vec![s("src/auth/cookie.ts")],
                    truncated: false,
                    hidden: 0,
                }),
            ),
        ),
        (
            "reply.git_committed",
            ok(
                73,
                Reply::GitCommitted(GitCommitted {
                    project_slug: s(PROJECT),
                    commit: s("8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60"),
                    branch: s("main"),
                    files: vec![s("src/auth/cookie.ts"), s("tests/cookie-race.spec.ts")],
                }),
            ),
        ),
        (
            "reply.worktrees",
            ok(
                75,
                Reply::Worktrees(Worktrees {
                    worktrees: vec![WorktreeEntry {
                        session_id: s(CHILD),
                        project_slug: s(PROJECT),
                        title: Some(s("Fix the cookie refresh race")),
                        orphan: false,
                        worktree: worktree_example(),
                        overlaps: vec![],
                    }],
                }),
            ),
        ),
        (
            "reply.worktree_merged",
            ok(
                76,
                Reply::WorktreeMerged(WorktreeMerged {
                    session_id: s(CHILD),
                    into: s("main"),
                    commit: s("4c2b9e1d7a3f5e8b0c6d2a9f1e4b7c3d8a5f0e2b"),
                    squash: true,
                    files: vec![s("src/auth/cookie.ts"), s("tests/cookie-race.spec.ts")],
                    committed: Some(s("9a1f3c5e7b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a")),
                    checkout: Some(s("/home/ana/src/webapp")),
                }),
            ),
        ),
        (
            "reply.worktree_rebased",
            ok(
                77,
                Reply::WorktreeRebased(WorktreeRebased {
                    session_id: s(CHILD),
                    onto: s("main"),
                    base: s("4c2b9e1d7a3f5e8b0c6d2a9f1e4b7c3d8a5f0e2b"),
                    committed: None,
                }),
            ),
        ),
        (
            "reply.worktree_discarded",
            ok(
                78,
                Reply::WorktreeDiscarded(WorktreeDiscarded {
                    session_id: s(CHILD),
                    path: s("/home/ana/.local/share/paddock/worktrees/webapp/5f0c2d8e"),
                    branch: s("paddock/5f0c2d8e"),
                    lost: vec![],
                }),
            ),
        ),
        (
            "reply.worktree_pruned",
            ok(
                79,
                Reply::WorktreePruned(WorktreePruned {
                    removed: vec![],
                    kept: vec![WorktreeKept {
                        entry: WorktreeEntry {
                            session_id: s(CHILD),
                            project_slug: s(PROJECT),
                            title: None,
                            orphan: true,
                            worktree: worktree_example(),
                            overlaps: vec![],
                        },
                        reason: s(
                            "its branch paddock/5f0c2d8e has work its target lacks (src/auth/cookie.ts): merge it by hand, or `paddock worktree discard 5f0c2d8e --force`",
                        ),
                    }],
                }),
            ),
        ),
        (
            "reply.git_pushed",
            ok(
                74,
                Reply::GitPushed(GitPushed {
                    project_slug: s(PROJECT),
                    data_root: false,
                    branch: s("main"),
                    remote: s("origin"),
                    remote_branch: s("main"),
                    from: Some(s("3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39")),
                    to: s("8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60"),
                    up_to_date: false,
                    set_upstream: false,
                }),
            ),
        ),
        (
            "reply.git_pushed.first",
            ok(
                75,
                Reply::GitPushed(GitPushed {
                    project_slug: s(ROOT),
                    data_root: true,
                    branch: s("main"),
                    remote: s("origin"),
                    remote_branch: s("main"),
                    from: None,
                    to: s("8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60"),
                    up_to_date: false,
                    set_upstream: true,
                }),
            ),
        ),
        (
            "reply.git_pushed.up_to_date",
            ok(
                74,
                Reply::GitPushed(GitPushed {
                    project_slug: s(PROJECT),
                    data_root: false,
                    branch: s("main"),
                    remote: s("origin"),
                    remote_branch: s("main"),
                    from: Some(s("8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60")),
                    to: s("8d1e4b7a0c9f2e3d5b6a7c8e9f0a1b2c3d4e5f60"),
                    up_to_date: true,
                    set_upstream: false,
                }),
            ),
        ),
        (
            "reply.provenance.stale",
            ok(
                61,
                Reply::Provenance(Box::new(Provenance {
                    project_slug: s(ROOT),
                    path: s("report.csv"),
                    status: FileStatus::Stale,
                    status_reason: s(
                        "the bytes on disk differ from the hash recorded when Bash wrote it",
                    ),
                    current_hash: Some(s(
                        "sha256:0c1e3a5b7d9f1e3c5a7b9d1f3e5c7a9b1d3f5e7c9a1b3d5f7e9c1a3b5d7f9e1c",
                    )),
                    producers: vec![FileStep {
                        session_id: s(ROOT_CHAT),
                        job_id: s("0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78"),
                        step_id: s("0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78:2"),
                        title: Some(s("Nightly backup check")),
                        tool: s("Bash"),
                        at: s("2026-11-02T02:01:12Z"),
                        edge: FileEdge::Inferred,
                        change: s("created"),
                        hash: Some(s(
                            "sha256:7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c",
                        )),
                        environment: None,
                        model: None,
                        specialist: None,
                    }],
                    readers: vec![],
                    lineage: Lineage {
                        nodes: vec![LineageNode {
                            path: s("report.csv"),
                            hops: 0,
                            producer: Some(FileStep {
                                session_id: s(ROOT_CHAT),
                                job_id: s("0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78"),
                                step_id: s("0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78:2"),
                                title: Some(s("Nightly backup check")),
                                tool: s("Bash"),
                                at: s("2026-11-02T02:01:12Z"),
                                edge: FileEdge::Inferred,
                                change: s("created"),
                                hash: None,
                                environment: None,
                                model: None,
                                specialist: None,
                            }),
                            inputs: vec![],
                            missing_origin: false,
                            changed_since_use: false,
                        }],
                        truncated: true,
                    },
                    notes: vec![s(
                        "Some tool calls of chat c71d4e2a were not recorded (the recorder fell behind), so its steps are incomplete.",
                    )],
                    environments: vec![],
                })),
            ),
        ),
        (
            "reply.agent_tools",
            ok(
                1,
                Reply::AgentTools(AgentTools {
                    tools: vec![AgentTool {
                        name: s("create_chat"),
                        description: s(
                            "Start a new chat (a child of this one) with a first prompt.",
                        ),
                        input_schema: json!({"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}),
                    }],
                }),
            ),
        ),
        (
            "reply.agent_result",
            ok(
                2,
                Reply::AgentResult(AgentResult {
                    text: s(
                        "{\"sessionId\":\"a3e9b1c4-6d2f-4f8a-b7c5-1e0d9f3a2b68\",\"project\":\"webapp\",\"depth\":1}",
                    ),
                    is_error: false,
                }),
            ),
        ),
        (
            "reply.forked",
            ok(
                24,
                Reply::Forked(Forked {
                    project_slug: s(PROJECT),
                    session_id: s("d2f6a8c0-1e3b-4d5f-9a7c-2b4e6f8a0c13"),
                }),
            ),
        ),
        (
            "reply.promoted",
            ok(
                24,
                Reply::Promoted(Promoted {
                    from_project: s(PROJECT),
                    to_project: s("login-service"),
                    session_ids: vec![s(SESSION), s("d2f6a8c0-1e3b-4d5f-9a7c-2b4e6f8a0c13")],
                    created_project: true,
                }),
            ),
        ),
        (
            "reply.history",
            ok(
                25,
                Reply::History(History {
                    runs: vec![
                        RunSummary {
                            job_id: s(JOB),
                            project_slug: s(ROOT),
                            session_id: s(ROOT_CHAT),
                            title: s("Nightly backup check"),
                            origin: Origin::Scheduled,
                            depth: 0,
                            trigger: Some(s("nightly-backup")),
                            status: RunStatus::Completed,
                            started_at: s("2026-11-02T02:00:01Z"),
                            finished_at: Some(s("2026-11-02T02:01:37Z")),
                            cost_usd: Some(0.0412),
                            prompt: Some(s("Check last night's backup and report anything odd.")),
                            attribution: None,
                            is_new: true,
                            waiting: false,
                        },
                        RunSummary {
                            job_id: s("0193f4c3-1b2a-7d4e-8c3f-6a9b0e1d2c78"),
                            project_slug: s(PROJECT),
                            session_id: s(CHILD),
                            title: s("Investigate cookie refresh race"),
                            origin: Origin::Spawned,
                            depth: 1,
                            trigger: None,
                            status: RunStatus::Running,
                            started_at: s("2026-11-03T09:13:55Z"),
                            finished_at: None,
                            cost_usd: None,
                            prompt: Some(s("Find where the session cookie is refreshed.")),
                            attribution: None,
                            is_new: false,
                            waiting: false,
                        },
                    ],
                    last_seen: Some(s("2026-11-01T18:30:00Z")),
                    new_unattended: 1,
                    waiting: 0,
                }),
            ),
        ),
        (
            "reply.history.sent",
            ok(
                26,
                Reply::History(History {
                    runs: vec![RunSummary {
                        job_id: s("0193f4c4-2c3b-7e5f-9d40-7b0c1f2e3d89"),
                        project_slug: s(PROJECT),
                        session_id: s(SESSION),
                        title: s("Fix the flaky login test"),
                        origin: Origin::Spawned,
                        depth: 0,
                        trigger: None,
                        status: RunStatus::Completed,
                        started_at: s("2026-11-03T09:16:10Z"),
                        finished_at: Some(s("2026-11-03T09:16:52Z")),
                        cost_usd: Some(0.0123),
                        prompt: Some(s("Report: the race is in refreshSession; fixed and tested.")),
                        attribution: Some(Attribution::Sent {
                            from_session_id: s(CHILD),
                            from_project: s(PROJECT),
                            from_title: Some(s("Investigate cookie refresh race")),
                        }),
                        is_new: true,
                        waiting: false,
                    }],
                    last_seen: Some(s("2026-11-03T09:00:00Z")),
                    new_unattended: 1,
                    waiting: 0,
                }),
            ),
        ),
        (
            "reply.history.failed",
            ok(
                28,
                Reply::History(History {
                    runs: vec![
                        RunSummary {
                            job_id: s("0193f4c4-2c3b-7e5f-9d40-7b0c1f2e3d89"),
                            project_slug: s(PROJECT),
                            session_id: s(HOOK_CHAT),
                            title: s("Triage CI failure on main"),
                            origin: Origin::Hook,
                            depth: 0,
                            trigger: Some(s("ci-failed")),
                            status: RunStatus::Failed,
                            started_at: s("2026-11-03T07:41:09Z"),
                            finished_at: Some(s("2026-11-03T07:44:30Z")),
                            cost_usd: Some(0.0187),
                            prompt: None,
                            attribution: None,
                            is_new: true,
                            waiting: false,
                        },
                        RunSummary {
                            job_id: s("0193f4c5-3d4c-7f60-8e51-8c1d2f3e4f90"),
                            project_slug: s(PROJECT),
                            session_id: s(SESSION),
                            title: s("Fix the flaky login test"),
                            origin: Origin::Human,
                            depth: 0,
                            trigger: None,
                            status: RunStatus::Cancelled,
                            started_at: s("2026-11-03T09:12:40Z"),
                            finished_at: Some(s("2026-11-03T09:13:02Z")),
                            cost_usd: None,
                            prompt: Some(s("The login test fails about one run in five.")),
                            attribution: None,
                            is_new: false,
                            waiting: false,
                        },
                        RunSummary {
                            job_id: s("0193f4c6-4e5d-7071-9f62-9d2e3f4a5b01"),
                            project_slug: s(PROJECT),
                            session_id: s("9e1a5c3f-2b7d-4f08-8c6e-0a4d2f9b1e57"),
                            title: s("Add rate limiting to the API"),
                            origin: Origin::Adopted,
                            depth: 0,
                            trigger: None,
                            status: RunStatus::Interrupted,
                            started_at: s("2026-10-28T16:20:11Z"),
                            finished_at: Some(s("2026-10-28T17:02:45Z")),
                            cost_usd: None,
                            prompt: None,
                            attribution: None,
                            is_new: false,
                            waiting: false,
                        },
                    ],
                    last_seen: None,
                    new_unattended: 1,
                    waiting: 0,
                }),
            ),
        ),
        (
            "reply.imported",
            ok(
                27,
                Reply::Imported(Imported {
                    project_slug: s(PROJECT),
                    path: s("/home/ana/src/webapp"),
                    adopted: vec![s("9e1a5c3f-2b7d-4f08-8c6e-0a4d2f9b1e57")],
                    skipped: vec![ImportSkip {
                        session_id: s("b5d7f9a1-3c5e-4f70-8a2c-4e6f8a0b2c35"),
                        reason: s("empty"),
                    }],
                    dry_run: false,
                }),
            ),
        ),
        // --- error responses -------------------------------------------------------------
        (
            "error.protocol_mismatch",
            control(ControlMessage::Response(Response {
                id: 1,
                outcome: Outcome::Err(ErrorBody {
                    code: ErrorCode::ProtocolMismatch,
                    message: s(
                        "paddockd 0.2.0 speaks protocol 2 but this client speaks 1; it is idle, so `paddock daemon restart` is safe.",
                    ),
                    mismatch: Some(Box::new(ProtocolMismatch {
                        daemon_protocol: 2,
                        daemon_version: s("0.2.0"),
                        pid: 48213,
                        running_turns: 0,
                    })),
                    git: None,
                    files: vec![],
                }),
            })),
        ),
        (
            "error.git_failed",
            control(ControlMessage::Response(Response {
                id: 74,
                outcome: Outcome::Err(ErrorBody {
                    code: ErrorCode::GitFailed,
                    message: s(
                        "origin has commits that main does not (fetch first): pull (or rebase) first, then push again; nothing was pushed",
                    ),
                    mismatch: None,
                    git: Some(GitFailure {
                        reason: GitFailureReason::Rejected,
                        stderr: s(
                            "error: failed to push some refs to 'git@github.com:ana/webapp.git'\nhint: Updates were rejected because the remote contains work that you do not\nhint: have locally. This is usually caused by another repository pushing to\nhint: the same ref. If you want to integrate the remote changes, use\nhint: 'git pull' before pushing again.",
                        ),
                    }),
                    files: vec![],
                }),
            })),
        ),
        (
            "error.conflict",
            control(ControlMessage::Response(Response {
                id: 77,
                outcome: Outcome::Err(ErrorBody {
                    code: ErrorCode::Conflict,
                    message: s(
                        "the merge would conflict in src/auth/cookie.ts; nothing was changed: bring the chat up to date (paddock worktree rebase) and resolve there, or ask the chat to",
                    ),
                    mismatch: None,
                    git: None,
                    files: vec![s("src/auth/cookie.ts")],
                }),
            })),
        ),
        (
            "error.hello_required",
            err(
                1,
                ErrorCode::HelloRequired,
                "Send `hello` with the protocol version before any other request.",
            ),
        ),
        (
            "error.invalid_argument",
            err(
                18,
                ErrorCode::InvalidArgument,
                "`Web App` is not a valid project slug: use lowercase letters, digits and `-`.",
            ),
        ),
        (
            "error.not_found",
            err(
                16,
                ErrorCode::NotFound,
                "No chat with session id 5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90; `paddock ls --all` lists every chat.",
            ),
        ),
        (
            "error.already_exists",
            err(
                18,
                ErrorCode::AlreadyExists,
                "Project `webapp` already exists (/home/ana/src/webapp).",
            ),
        ),
        (
            "error.busy",
            err(
                5,
                ErrorCode::Busy,
                "The chat is running a turn; cancel it or queue the command with chat:set_queue.",
            ),
        ),
        (
            "error.shutting_down",
            err(
                3,
                ErrorCode::ShuttingDown,
                "paddockd is shutting down; the client will start a new one.",
            ),
        ),
        (
            "error.permission_denied",
            err(
                1,
                ErrorCode::PermissionDenied,
                "this paddockd belongs to uid 1000; connections from uid 1001 are refused",
            ),
        ),
        (
            "error.internal",
            err(
                16,
                ErrorCode::Internal,
                "Could not read the transcript: permission denied (os error 13). See the daemon log for details.",
            ),
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Coverage: an exhaustive match per wire enum, naming the row that shows each variant.
// ---------------------------------------------------------------------------------------------

/// Defines `fn $fn(&$ty) -> &'static str` as a match with no wildcard arm (a new variant breaks
/// compilation here) and `const $all`, every name that match can return.
macro_rules! covers {
    ($fn:ident, $all:ident, $ty:ty { $($pat:pat => $name:literal,)+ }) => {
        fn $fn(v: &$ty) -> &'static str {
            match v {
                $($pat => $name,)+
            }
        }
        const $all: &[&str] = &[$($name),+];
    };
}

covers!(request_row, REQUEST_ROWS, Request {
    Request::Hello(_) => "request.hello",
    Request::Ping => "request.ping",
    Request::ChatSend(_) => "request.chat_send",
    Request::ChatCommand(_) => "request.chat_command",
    Request::ChatCancel(_) => "request.chat_cancel",
    Request::ChatSubscribe(_) => "request.chat_subscribe",
    Request::ChatUnsubscribe(_) => "request.chat_unsubscribe",
    Request::ChatSetQueue(_) => "request.chat_set_queue",
    Request::ChatContinue(_) => "request.chat_continue",
    Request::ChatList(_) => "request.chat_list",
    Request::ChatTranscript(_) => "request.chat_transcript",
    Request::ProjectList => "request.project_list",
    Request::ProjectCreate(_) => "request.project_create",
    Request::ProjectUpdate(_) => "request.project_update",
    Request::ProjectDelete(_) => "request.project_delete",
    Request::ProjectPromote(_) => "request.project_promote",
    Request::ProjectOverviewRequest(_) => "request.project_overview",
    Request::DaemonStatus => "request.daemon_status",
    Request::DaemonShutdown => "request.daemon_shutdown",
    Request::DaemonInfo => "request.daemon_info",
    Request::ChatResolve(_) => "request.chat_resolve",
    Request::ChatUpdate(_) => "request.chat_update",
    Request::ChatDelete(_) => "request.chat_delete",
    Request::ChatFork(_) => "request.chat_fork",
    Request::ChatPromote(_) => "request.chat_promote",
    Request::HistoryList(_) => "request.history_list",
    Request::HistorySeen => "request.history_seen",
    Request::ChatImport(_) => "request.chat_import",
    Request::TriggerList(_) => "request.trigger_list",
    Request::TriggerSet(_) => "request.trigger_set",
    Request::TriggerRemove(_) => "request.trigger_remove",
    Request::TriggerFire(_) => "request.trigger_fire",
    Request::ApprovalList => "request.approval_list",
    Request::NotificationsSubscribe => "request.notifications_subscribe",
    Request::Search(_) => "request.search",
    Request::AttachmentGet(_) => "request.attachment_get",
    Request::ApprovalAnswer(_) => "request.approval_answer",
    Request::AgentTools(_) => "request.agent_tools",
    Request::AgentCall(_) => "request.agent_call",
    Request::ProvenanceFile(_) => "request.provenance_file",
    Request::ProvenanceTouched(_) => "request.provenance_touched",
    Request::ProvenanceBlame(_) => "request.provenance_blame",
    Request::FilesList(_) => "request.files_list",
    Request::FilesRead(_) => "request.files_read",
    Request::GitStatus(_) => "request.git_status",
    Request::GitDiff(_) => "request.git_diff",
    Request::GitCommit(_) => "request.git_commit",
    Request::WorktreeList(_) => "request.worktree_list",
    Request::WorktreeMerge(_) => "request.worktree_merge",
    Request::WorktreeRebase(_) => "request.worktree_rebase",
    Request::WorktreeDiscard(_) => "request.worktree_discard",
    Request::WorktreePrune(_) => "request.worktree_prune",
    Request::GitPush(_) => "request.git_push",
});

covers!(action_row, ACTION_ROWS, ChatAction {
    ChatAction::Archive => "action.archive",
    ChatAction::Unarchive => "action.unarchive",
    ChatAction::Star => "action.star",
    ChatAction::Unstar => "action.unstar",
    ChatAction::Read => "action.read",
    ChatAction::Unread => "action.unread",
    ChatAction::Detach => "action.detach",
    ChatAction::Attach => "action.attach",
});

covers!(status_row, STATUS_ROWS, RunStatus {
    RunStatus::Running => "run.running",
    RunStatus::Completed => "run.completed",
    RunStatus::Failed => "run.failed",
    RunStatus::Cancelled => "run.cancelled",
    RunStatus::Interrupted => "run.interrupted",
    RunStatus::Skipped => "run.skipped",
});

covers!(kind_row, KIND_ROWS, TriggerKind {
    TriggerKind::Schedule => "trigger.schedule",
    TriggerKind::Hook => "trigger.hook",
});

covers!(hook_row, HOOK_ROWS, HookEvent {
    HookEvent::TurnCompleted => "hook.turn_completed",
    HookEvent::TurnFailed => "hook.turn_failed",
    HookEvent::ChildFinished => "hook.child_finished",
    HookEvent::FileChanged => "hook.file_changed",
    HookEvent::Manual => "hook.manual",
    HookEvent::Archived => "hook.archived",
});

covers!(missed_row, MISSED_ROWS, MissedPolicy {
    MissedPolicy::Skip => "missed.skip",
    MissedPolicy::RunOnce => "missed.run_once",
});

covers!(session_row, SESSION_ROWS, SessionPolicy {
    SessionPolicy::New => "session.new",
    SessionPolicy::Resume => "session.resume",
});

/// The coverage names a trigger spec shows.
fn spec_rows(spec: &TriggerSpec) -> Vec<&'static str> {
    let mut out = vec![
        kind_row(&spec.kind),
        missed_row(&spec.missed),
        session_row(&spec.session),
    ];
    if let Some(on) = &spec.on {
        out.push(hook_row(on));
    }
    out
}

covers!(event_row, EVENT_ROWS, ChatEvent {
    ChatEvent::User(_) => "event.chat_user",
    ChatEvent::Response(_) => "event.chat_response",
    ChatEvent::Thinking(_) => "event.chat_thinking",
    ChatEvent::ToolStart(_) => "event.chat_tool_start",
    ChatEvent::ToolCall(_) => "event.chat_tool_call",
    ChatEvent::MessageBoundary(_) => "event.chat_message_boundary",
    ChatEvent::Complete(_) => "event.chat_complete",
    ChatEvent::Error(_) => "event.chat_error",
    ChatEvent::Notice(_) => "event.chat_notice",
    ChatEvent::QueuedFlushed(_) => "event.chat_queued_flushed",
    ChatEvent::KilledTask(_) => "event.chat_killed_task",
    ChatEvent::Answered(_) => "event.chat_answered",
});

covers!(attribution_row, ATTRIBUTION_ROWS, Attribution {
    Attribution::Scheduled { .. } => "attribution.scheduled",
    Attribution::Sent { .. } => "attribution.sent",
    Attribution::Hook { .. } => "attribution.hook",
    Attribution::Recovery => "attribution.recovery",
});

covers!(control_row, CONTROL_ROWS, ControlMessage {
    ControlMessage::Response(_) => "control.response",
    ControlMessage::Error(_) => "control.error",
    ControlMessage::Active(_) => "control.chat_active",
    ControlMessage::Resync(_) => "control.chat_resync",
    ControlMessage::ChatsChanged(_) => "control.chats_changed",
    ControlMessage::ApprovalsChanged(_) => "control.approvals_changed",
    ControlMessage::ProjectChanged(_) => "control.project_changed",
    ControlMessage::Attention(_) => "control.attention",
    ControlMessage::Stopping(_) => "control.daemon_stopping",
});

covers!(decision_row, DECISION_ROWS, ApprovalDecision {
    ApprovalDecision::Allow => "decision.allow",
    ApprovalDecision::Deny => "decision.deny",
    ApprovalDecision::Always => "decision.always",
});

covers!(resync_row, RESYNC_ROWS, ResyncReason {
    ResyncReason::AgedOut => "resync.aged_out",
    ResyncReason::SlowClient => "resync.slow_client",
    ResyncReason::UnknownSeq => "resync.unknown_seq",
});

covers!(stop_row, STOP_ROWS, StopReason {
    StopReason::Requested => "control.daemon_stopping",
    StopReason::Signal => "control.daemon_stopping.signal",
});

covers!(reply_row, REPLY_ROWS, Reply {
    Reply::Hello(_) => "reply.hello",
    Reply::Pong => "reply.pong",
    Reply::Ack => "reply.ack",
    Reply::Sent(_) => "reply.sent",
    Reply::Cancelled(_) => "reply.cancelled",
    Reply::Subscribed(_) => "reply.subscribed",
    Reply::Chats(_) => "reply.chats",
    Reply::Transcript(_) => "reply.transcript",
    Reply::Projects(_) => "reply.projects",
    Reply::Project(_) => "reply.project",
    Reply::ProjectDeleted(_) => "reply.project_deleted",
    Reply::ProjectOverview(_) => "reply.project_overview",
    Reply::Status(_) => "reply.status",
    Reply::Info(_) => "reply.info",
    Reply::Resolved(_) => "reply.resolved",
    Reply::Updated(_) => "reply.updated",
    Reply::Forked(_) => "reply.forked",
    Reply::Promoted(_) => "reply.promoted",
    Reply::History(_) => "reply.history",
    Reply::Imported(_) => "reply.imported",
    Reply::Triggers(_) => "reply.triggers",
    Reply::Trigger(_) => "reply.trigger",
    Reply::Fired(_) => "reply.fired",
    Reply::Approvals(_) => "reply.approvals",
    Reply::AgentTools(_) => "reply.agent_tools",
    Reply::AgentResult(_) => "reply.agent_result",
    Reply::Provenance(_) => "reply.provenance",
    Reply::Touched(_) => "reply.touched",
    Reply::SearchResults(_) => "reply.search_results",
    Reply::Attachment(_) => "reply.attachment",
    Reply::Blame(_) => "reply.blame",
    Reply::FileListing(_) => "reply.file_listing",
    Reply::FileText(_) => "reply.file_text",
    Reply::GitStatus(_) => "reply.git_status",
    Reply::GitDiff(_) => "reply.git_diff",
    Reply::GitCommitted(_) => "reply.git_committed",
    Reply::Worktrees(_) => "reply.worktrees",
    Reply::WorktreeMerged(_) => "reply.worktree_merged",
    Reply::WorktreeRebased(_) => "reply.worktree_rebased",
    Reply::WorktreeDiscarded(_) => "reply.worktree_discarded",
    Reply::WorktreePruned(_) => "reply.worktree_pruned",
    Reply::GitPushed(_) => "reply.git_pushed",
});

covers!(transcript_row, TRANSCRIPT_ROWS, TranscriptEntry {
    TranscriptEntry::User { .. } => "transcript.user",
    TranscriptEntry::Assistant { .. } => "transcript.assistant",
    TranscriptEntry::Thinking { .. } => "transcript.thinking",
    TranscriptEntry::ToolUse { .. } => "transcript.tool_use",
    TranscriptEntry::ToolResult { .. } => "transcript.tool_result",
    TranscriptEntry::Compaction { .. } => "transcript.compaction",
    TranscriptEntry::Interrupted { .. } => "transcript.interrupted",
    TranscriptEntry::ApiError { .. } => "transcript.api_error",
});

covers!(error_row, ERROR_ROWS, ErrorCode {
    ErrorCode::ProtocolMismatch => "error.protocol_mismatch",
    ErrorCode::Conflict => "error.conflict",
    ErrorCode::HelloRequired => "error.hello_required",
    ErrorCode::MalformedFrame => "error.malformed_frame",
    ErrorCode::FrameTooLarge => "error.frame_too_large",
    ErrorCode::InvalidArgument => "error.invalid_argument",
    ErrorCode::NotFound => "error.not_found",
    ErrorCode::AlreadyExists => "error.already_exists",
    ErrorCode::Busy => "error.busy",
    ErrorCode::ShuttingDown => "error.shutting_down",
    ErrorCode::PermissionDenied => "error.permission_denied",
    ErrorCode::GitFailed => "error.git_failed",
    ErrorCode::Internal => "error.internal",
});

covers!(origin_row, ORIGIN_ROWS, Origin {
    Origin::Human => "origin.human",
    Origin::Scheduled => "origin.scheduled",
    Origin::Spawned => "origin.spawned",
    Origin::Hook => "origin.hook",
    Origin::Adopted => "origin.adopted",
});

covers!(scope_row, SCOPE_ROWS, ChatScope {
    ChatScope::Active => "scope.active",
    ChatScope::Archived => "scope.archived",
    ChatScope::All => "scope.all",
});

/// Every coverage name the value shows (its message, and the nested kinds inside it).
fn covered(golden: &Golden) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    match golden {
        Golden::Client(msg) => {
            out.insert(request_row(&msg.request));
            if let Request::ChatList(list) = &msg.request {
                out.insert(scope_row(&list.scope));
            }
            if let Request::ChatUpdate(u) = &msg.request {
                out.insert(action_row(&u.action));
            }
            if let Request::ApprovalAnswer(a) = &msg.request {
                out.insert(decision_row(&a.decision));
            }
            if let Request::TriggerSet(t) = &msg.request {
                out.extend(spec_rows(&t.spec));
            }
        }
        Golden::Server(ServerMessage::Frame(frame)) => {
            out.insert(event_row(&frame.event));
            if let ChatEvent::User(UserTurn {
                attribution: Some(a),
                ..
            }) = &frame.event
            {
                out.insert(attribution_row(a));
            }
        }
        Golden::Server(ServerMessage::Control(msg)) => {
            out.insert(control_row(msg));
            match msg {
                ControlMessage::Response(Response { outcome, .. }) => match outcome {
                    Outcome::Ok(reply) => {
                        out.insert(reply_row(reply));
                        if let Reply::Approvals(a) = reply {
                            out.extend(a.approvals.iter().map(|x| origin_row(&x.origin)));
                        }
                        let chats: &[ChatSummary] = match reply {
                            Reply::Chats(c) => &c.chats,
                            Reply::Transcript(t) => std::slice::from_ref(&t.chat),
                            _ => &[],
                        };
                        out.extend(chats.iter().map(|c| origin_row(&c.origin)));
                        if let Reply::History(h) = reply {
                            for run in &h.runs {
                                out.insert(origin_row(&run.origin));
                                out.insert(status_row(&run.status));
                            }
                        }
                        let triggers: Vec<&TriggerInfo> = match reply {
                            Reply::Triggers(t) => t.triggers.iter().collect(),
                            Reply::Trigger(t) => vec![&**t],
                            _ => vec![],
                        };
                        for t in triggers {
                            out.extend(spec_rows(&t.spec));
                            if let Some(status) = &t.last_status {
                                out.insert(status_row(status));
                            }
                        }
                        if let Reply::Transcript(t) = reply {
                            for entry in &t.entries {
                                out.insert(transcript_row(entry));
                                if let TranscriptEntry::User {
                                    attribution: Some(a),
                                    ..
                                } = entry
                                {
                                    out.insert(attribution_row(a));
                                }
                            }
                        }
                    }
                    Outcome::Err(body) => {
                        out.insert(error_row(&body.code));
                    }
                },
                ControlMessage::Error(e) => {
                    out.insert(error_row(&e.error.code));
                }
                ControlMessage::Resync(r) => {
                    out.insert(resync_row(&r.reason));
                }
                ControlMessage::Stopping(stopping) => {
                    out.insert(stop_row(&stopping.reason));
                }
                ControlMessage::Active(_)
                | ControlMessage::ChatsChanged(_)
                | ControlMessage::ApprovalsChanged(_)
                | ControlMessage::ProjectChanged(_)
                | ControlMessage::Attention(_) => {}
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden_dir() -> PathBuf {
    crate_dir().join("tests").join("golden")
}

fn golden_path(name: &str) -> PathBuf {
    golden_dir().join(format!("{name}.json"))
}

fn protocol_doc() -> PathBuf {
    crate_dir().join("..").join("docs").join("PROTOCOL.md")
}

fn update_golden() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1")
}

fn encode_golden(golden: &Golden) -> String {
    match golden {
        Golden::Client(m) => encode(m),
        Golden::Server(m) => encode(m),
    }
    .expect("every example encodes")
}

fn read(path: &Path) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("reading {}: {e}", path.display()),
    }
}

const HOW_TO_UPDATE: &str = "run `UPDATE_GOLDEN=1 cargo test -p paddock-proto --test golden` to (re)write it (and the examples already in docs/PROTOCOL.md), then review the diff";

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn encode_matches_the_golden_files() {
    let mut failures = Vec::new();
    for (name, value) in table() {
        let line = encode_golden(&value);
        let path = golden_path(name);
        match read(&path) {
            Some(committed) if committed == line => {}
            committed if update_golden() => {
                std::fs::create_dir_all(golden_dir()).unwrap();
                std::fs::write(&path, &line).unwrap();
                let what = if committed.is_some() { "updated" } else { "wrote" };
                eprintln!("{what} {}", path.display());
            }
            None => failures.push(format!(
                "{name}: golden file {} is missing; {HOW_TO_UPDATE}",
                path.display()
            )),
            Some(committed) => failures.push(format!(
                "{name}: encoding differs from {}\n  committed: {}\n  encoded:   {}\n  if the wire change is intended, {HOW_TO_UPDATE}",
                path.display(),
                committed.trim_end(),
                line.trim_end()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn golden_files_decode_to_the_same_value() {
    for (name, value) in table() {
        let Some(text) = read(&golden_path(name)) else {
            // Reported by encode_matches_the_golden_files.
            continue;
        };
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "{name}: a golden file is exactly one line"
        );
        let line = text.trim_end_matches('\n').as_bytes();
        match value {
            Golden::Client(expected) => {
                let got: ClientMessage = decode(line)
                    .unwrap_or_else(|e| panic!("{name}: decoding as ClientMessage: {e}"));
                assert_eq!(got, expected, "{name}: round trip through ClientMessage");
            }
            Golden::Server(expected) => {
                let got: ServerMessage = decode(line)
                    .unwrap_or_else(|e| panic!("{name}: decoding as ServerMessage: {e}"));
                assert_eq!(got, expected, "{name}: round trip through ServerMessage");
                let fast =
                    decode_server(line).unwrap_or_else(|e| panic!("{name}: decode_server: {e}"));
                assert_eq!(
                    fast, expected,
                    "{name}: decode_server gives what decode gives"
                );
            }
        }
    }
}

/// Every reply kind decodes straight into its payload (`Reply::decode_kind`, the fast path of
/// `decode_server`) to the value the derived decoding gives.
#[test]
fn every_reply_decodes_straight_into_its_payload() {
    let mut kinds = BTreeSet::new();
    for (name, value) in table() {
        let Golden::Server(ServerMessage::Control(ControlMessage::Response(Response {
            outcome: Outcome::Ok(expected),
            ..
        }))) = value
        else {
            continue;
        };
        let ok = serde_json::to_string(&expected).unwrap();
        let got = Reply::decode_kind(expected.kind(), &ok)
            .unwrap_or_else(|| panic!("{name}: decode_kind does not know {}", expected.kind()))
            .unwrap_or_else(|e| panic!("{name}: decode_kind: {e}"));
        assert_eq!(got, expected, "{name}: decode_kind gives what decode gives");
        kinds.insert(expected.kind());
    }
    assert!(
        kinds.len() > 30,
        "the table has replies of {} kinds",
        kinds.len()
    );
    assert!(Reply::decode_kind("no such kind", "{}").is_none());
}

#[test]
fn golden_files_are_all_in_the_table() {
    let names: BTreeSet<String> = table().iter().map(|(n, _)| format!("{n}.json")).collect();
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(golden_dir()).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !names.contains(&file) {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "golden files with no row in the table (delete them, or add their rows): {stale:?}"
    );
}

#[test]
fn table_names_are_unique_and_name_what_they_show() {
    let mut seen = BTreeSet::new();
    for (name, value) in table() {
        assert!(seen.insert(name), "{name}: two rows with one name");
        let shows = covered(&value);
        assert!(
            shows.iter().any(|c| name == *c
                || name
                    .strip_prefix(c)
                    .is_some_and(|rest| rest.starts_with('.'))),
            "{name}: a row is named after something it shows ({shows:?}), optionally with a `.suffix`"
        );
    }
}

#[test]
fn every_variant_has_a_golden() {
    let shown: BTreeSet<&str> = table().iter().flat_map(|(_, v)| covered(v)).collect();
    let all = [
        REQUEST_ROWS,
        EVENT_ROWS,
        ATTRIBUTION_ROWS,
        CONTROL_ROWS,
        RESYNC_ROWS,
        STOP_ROWS,
        REPLY_ROWS,
        TRANSCRIPT_ROWS,
        ERROR_ROWS,
        ORIGIN_ROWS,
        SCOPE_ROWS,
        ACTION_ROWS,
        STATUS_ROWS,
        KIND_ROWS,
        HOOK_ROWS,
        DECISION_ROWS,
        MISSED_ROWS,
        SESSION_ROWS,
    ];
    let missing: Vec<&str> = all
        .iter()
        .flat_map(|names| names.iter().copied())
        .filter(|n| !shown.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "variants with no example in the golden table: {missing:?}"
    );
}

/// The doc's examples, by name: each ``Golden example `NAME`:`` line and the ```json block after it.
fn doc_examples(doc: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(name) = golden_example_name(line) else {
            continue;
        };
        let mut block = String::new();
        let opened = lines.by_ref().find(|l| !l.trim().is_empty());
        if opened.map(str::trim) == Some("```json") {
            for l in lines.by_ref() {
                if l.trim() == "```" {
                    break;
                }
                block.push_str(l);
                block.push('\n');
            }
        }
        let previous = out.insert(name.to_owned(), block);
        assert!(previous.is_none(), "PROTOCOL.md shows `{name}` twice");
    }
    out
}

fn golden_example_name(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix("Golden example `")
        .and_then(|rest| rest.strip_suffix("`:"))
}

/// The doc with the ```json block after each ``Golden example `NAME`:`` line replaced by the
/// current golden line (names not in `lines` are left as they are).
fn rewrite_doc_examples(doc: &str, lines: &BTreeMap<&str, String>) -> String {
    let input: Vec<&str> = doc.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < input.len() {
        let line = input[i];
        i += 1;
        out.push_str(line);
        out.push('\n');
        let Some(golden) = golden_example_name(line).and_then(|n| lines.get(n)) else {
            continue;
        };
        // Drop the old block (blank lines, then a ```json fence up to its closing fence); with no
        // block yet, insert one and keep the blank line that follows the marker.
        let mut next = i;
        while next < input.len() && input[next].trim().is_empty() {
            next += 1;
        }
        if input.get(next).map(|l| l.trim()) == Some("```json") {
            next += 1;
            while next < input.len() && input[next].trim() != "```" {
                next += 1;
            }
            i = next + 1;
        }
        out.push_str("```json\n");
        out.push_str(golden);
        out.push_str("```\n");
    }
    out
}

#[test]
fn protocol_doc_shows_every_golden_verbatim() {
    let table = table();
    let mut doc = std::fs::read_to_string(protocol_doc()).expect("docs/PROTOCOL.md exists");
    if update_golden() {
        let lines: BTreeMap<&str, String> =
            table.iter().map(|(n, v)| (*n, encode_golden(v))).collect();
        let rewritten = rewrite_doc_examples(&doc, &lines);
        if rewritten != doc {
            std::fs::write(protocol_doc(), &rewritten).unwrap();
            doc = rewritten;
        }
    }
    let examples = doc_examples(&doc);
    let mut problems = Vec::new();
    for (name, value) in &table {
        let line = encode_golden(value);
        match examples.get(*name) {
            None => problems.push(format!(
                "{name}: missing from docs/PROTOCOL.md; describe it there with a line ``Golden example `{name}`:``, then {HOW_TO_UPDATE}"
            )),
            Some(block) if *block != line => problems.push(format!(
                "{name}: the ```json block after ``Golden example `{name}`:`` in docs/PROTOCOL.md is not tests/golden/{name}.json ({HOW_TO_UPDATE})\n  doc:    {}\n  golden: {}",
                block.trim_end(),
                line.trim_end()
            )),
            Some(_) => {}
        }
    }
    for name in examples.keys() {
        if !table.iter().any(|(n, _)| n == name) {
            problems.push(format!(
                "docs/PROTOCOL.md shows `{name}`, which the golden table does not have"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Codec edge cases, through the public API
// ---------------------------------------------------------------------------------------------

#[test]
fn encode_rejects_an_oversize_line() {
    let msg = ClientMessage {
        id: 1,
        request: Request::ChatSend(ChatSend {
            project_slug: s(PROJECT),
            session_id: None,
            message: "x".repeat(MAX_SERVER_LINE_BYTES),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }),
    };
    match encode(&msg) {
        Err(FrameError::TooLong { len, max }) => {
            assert_eq!(max, MAX_SERVER_LINE_BYTES);
            assert!(len > MAX_SERVER_LINE_BYTES);
        }
        Err(other) => panic!("expected TooLong, got {other:?}"),
        Ok(line) => panic!("expected TooLong, got a line of {} bytes", line.len()),
    }
}

#[test]
fn a_line_of_exactly_the_limit_is_accepted() {
    let overhead = encode(&ClientMessage {
        id: 1,
        request: Request::ChatSend(ChatSend {
            project_slug: s(PROJECT),
            session_id: None,
            message: String::new(),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }),
    })
    .unwrap()
    .len()
        - 1;
    let msg = ClientMessage {
        id: 1,
        request: Request::ChatSend(ChatSend {
            project_slug: s(PROJECT),
            session_id: None,
            message: "x".repeat(MAX_LINE_BYTES - overhead),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }),
    };
    let line = encode(&msg).unwrap();
    assert_eq!(
        line.len(),
        MAX_LINE_BYTES + 1,
        "the limit excludes the newline"
    );
    let mut framer = LineFramer::default();
    framer.push(line.as_bytes());
    let got = framer.next_frame().unwrap().unwrap();
    assert_eq!(decode::<ClientMessage>(&got).unwrap(), msg);
}

#[test]
fn malformed_lines_are_malformed_errors() {
    for line in [
        &b"{not json"[..],
        b"",
        b"[1,2,3]",
        b"\"hello\"",
        b"{\"id\":1,\"type\":\"ping\"} trailing",
        b"\xff\xfe{}",
    ] {
        let err = decode::<ClientMessage>(line).unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)), "{line:?}: {err:?}");
        let err = decode::<ServerMessage>(line).unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)), "{line:?}: {err:?}");
    }
}

#[test]
fn a_client_message_of_unknown_type_is_an_error() {
    for line in [
        &br#"{"id":9,"type":"chat:explode","sessionId":"5f0c2d8e-3b7a-4c1e-9a6f-2d4b8e1c7a90"}"#[..],
        br#"{"id":9,"type":"pong"}"#,
        br#"{"id":9,"type":"chat:response","text":"hi"}"#,
        br#"{"id":9,"type":"CHAT:SEND","projectSlug":"","message":"hi"}"#,
        br#"{"id":9}"#,
        br#"{"type":"ping"}"#,
        br#"{"id":-1,"type":"ping"}"#,
        br#"{"id":"9","type":"ping"}"#,
    ] {
        let err = decode::<ClientMessage>(line).unwrap_err();
        assert!(
            matches!(err, FrameError::Malformed(_)),
            "{}: {err:?}",
            String::from_utf8_lossy(line)
        );
    }
}

#[test]
fn an_unknown_type_is_named_in_the_error() {
    // The daemon sends this text back in its `malformed_frame` error, so it must say what was wrong.
    let err =
        decode::<ClientMessage>(br#"{"id":21,"type":"chat:archive","sessionId":"x"}"#).unwrap_err();
    let FrameError::Malformed(text) = err else {
        panic!("{err:?}")
    };
    assert!(text.contains("unknown variant `chat:archive`"), "{text}");
}

#[test]
fn a_server_message_of_unknown_type_is_an_error() {
    for line in [
        &br#"{"type":"chat:explode","sessionId":"s"}"#[..],
        br#"{"projectSlug":"","sessionId":"s","jobId":"j","seq":1,"type":"chat:explode"}"#,
        br#"{"type":"chat:response","text":"a frame without its Routing payload"}"#,
    ] {
        let err = decode::<ServerMessage>(line).unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)), "{err:?}");
    }
}

#[test]
fn a_request_missing_a_required_field_is_an_error() {
    for line in [
        &br#"{"id":3,"type":"chat:send","message":"no project slug"}"#[..],
        br#"{"id":3,"type":"chat:send","projectSlug":null,"message":"null is not the root workspace"}"#,
        br#"{"id":6,"type":"chat:cancel"}"#,
        br#"{"id":1,"type":"hello","client":"paddock 0.1.0"}"#,
    ] {
        let err = decode::<ClientMessage>(line).unwrap_err();
        assert!(matches!(err, FrameError::Malformed(_)), "{err:?}");
    }
}

#[test]
fn the_root_workspace_slug_survives_as_an_empty_string() {
    // Requests: a required slug, and an optional one (`Some("")` is "the root workspace only",
    // not "every project").
    let send = ClientMessage {
        id: 4,
        request: Request::ChatSend(ChatSend {
            project_slug: s(ROOT),
            session_id: None,
            message: s("hi"),
            model: None,
            preload_context: false,
            attachments: Vec::new(),
            isolation: None,
        }),
    };
    let line = encode(&send).unwrap();
    assert!(line.contains(r#""projectSlug":"""#), "{line}");
    assert_eq!(
        decode::<ClientMessage>(line.trim_end().as_bytes()).unwrap(),
        send
    );

    let list = ClientMessage {
        id: 14,
        request: Request::ChatList(ChatList {
            project_slug: Some(s(ROOT)),
            scope: ChatScope::Active,
            since: None,
            full_titles: false,
        }),
    };
    let line = encode(&list).unwrap();
    assert!(line.contains(r#""projectSlug":"""#), "{line}");
    let back = decode::<ClientMessage>(line.trim_end().as_bytes()).unwrap();
    match &back.request {
        Request::ChatList(ChatList {
            project_slug: Some(slug),
            ..
        }) => assert_eq!(slug, ""),
        other => panic!("the root slug was lost: {other:?}"),
    }
    assert_eq!(back, list);

    // Server messages: a hub frame (untagged decoding must not lose it) and control events.
    for msg in [
        ServerMessage::Frame(HubFrame {
            routing: Routing {
                project_slug: s(ROOT),
                session_id: s(ROOT_CHAT),
                job_id: s(JOB),
                seq: 1,
            },
            event: ChatEvent::Response(TextDelta { text: s("ok") }),
        }),
        ServerMessage::Control(ControlMessage::Active(Active {
            project_slug: s(ROOT),
            session_id: s(ROOT_CHAT),
            job_id: s(JOB),
            running: true,
        })),
        ServerMessage::Control(ControlMessage::ChatsChanged(ChatsChanged {
            project_slug: s(ROOT),
            session_id: None,
        })),
        ServerMessage::Control(ControlMessage::Response(Response {
            id: 17,
            outcome: Outcome::Ok(Reply::Project(ProjectInfo {
                slug: s(ROOT),
                path: s("/home/ana/.local/share/paddock/projects/_root"),
                created_at: None,
                ..Default::default()
            })),
        })),
    ] {
        let line = encode(&msg).unwrap();
        assert!(
            line.contains(r#""projectSlug":"""#) || line.contains(r#""slug":"""#),
            "{line}"
        );
        assert!(!line.contains("null"), "{line}");
        assert_eq!(
            decode::<ServerMessage>(line.trim_end().as_bytes()).unwrap(),
            msg
        );
    }
}

#[test]
fn the_framer_rejects_an_oversize_line_and_keeps_the_stream() {
    let good = encode(&ClientMessage {
        id: 2,
        request: Request::Ping,
    })
    .unwrap();
    let mut framer = LineFramer::new(64);
    framer.push(&[b'x'; 50]);
    framer.push(&[b'y'; 50]);
    assert!(framer.next_frame().is_none());
    framer.push(b"\n");
    framer.push(good.as_bytes());
    assert_eq!(
        framer.next_frame(),
        Some(Err(FrameError::TooLong { len: 100, max: 64 }))
    );
    let line = framer.next_frame().unwrap().unwrap();
    assert_eq!(
        decode::<ClientMessage>(&line).unwrap(),
        ClientMessage {
            id: 2,
            request: Request::Ping
        }
    );
    assert!(framer.next_frame().is_none());
    assert_eq!(framer.pending(), 0);
}

#[test]
fn unknown_fields_are_ignored_for_forward_compatibility() {
    // A newer peer may add optional fields within one protocol version; older peers skip them.
    let line = br#"{"id":2,"type":"ping","traceId":"abc"}"#;
    assert_eq!(
        decode::<ClientMessage>(line).unwrap(),
        ClientMessage {
            id: 2,
            request: Request::Ping
        }
    );
}
