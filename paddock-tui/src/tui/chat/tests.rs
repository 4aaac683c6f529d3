use super::*;
use paddock_proto::{
    Attribution, ChatError, ChatEvent, ChatSummary, Complete, HubFrame, MessageBoundary, Notice,
    NoticeKind, Routing, TextDelta, ToolCall, ToolStart, Transcript, TranscriptEntry, UserTurn,
};
use serde_json::{Value, json};

const SESSION: &str = "s-1";

fn frame(job: &str, seq: u64, event: ChatEvent) -> HubFrame {
    HubFrame {
        routing: Routing {
            project_slug: "web".into(),
            session_id: SESSION.into(),
            job_id: job.into(),
            seq,
        },
        event,
    }
}

fn user(id: &str, text: &str) -> ChatEvent {
    ChatEvent::User(UserTurn {
        message_id: Some(id.into()),
        text: text.into(),
        attribution: None,
    })
}

fn text(t: &str) -> ChatEvent {
    ChatEvent::Response(TextDelta { text: t.into() })
}

fn boundary() -> ChatEvent {
    ChatEvent::MessageBoundary(MessageBoundary { message_id: None })
}

fn complete(success: bool) -> ChatEvent {
    ChatEvent::Complete(Complete {
        success,
        ended: None,
        error: None,
        model: None,
        usage: None,
        cost_usd: None,
        duration_ms: None,
        terminal_reason: None,
    })
}

fn tool_start(id: &str, name: &str, input: Value) -> ChatEvent {
    ChatEvent::ToolStart(ToolStart {
        tool_use_id: id.into(),
        name: name.into(),
        input,
    })
}

fn tool_call(id: &str, name: &str, input: Value, output: &str, is_error: bool) -> ChatEvent {
    ChatEvent::ToolCall(ToolCall {
        tool_use_id: id.into(),
        name: name.into(),
        input,
        output: output.into(),
        is_error,
        detail: None,
    })
}

fn transcript(entries: Vec<TranscriptEntry>, running: bool) -> Transcript {
    Transcript {
        chat: ChatSummary {
            session_id: SESSION.into(),
            project_slug: "web".into(),
            title: "Fix the build".into(),
            running,
            ..ChatSummary::default()
        },
        entries,
    }
}

fn t_user(uuid: &str, text: &str) -> TranscriptEntry {
    TranscriptEntry::User {
        uuid: Some(uuid.into()),
        timestamp: None,
        text: text.into(),
        attribution: None,
    }
}

fn t_assistant(text: &str) -> TranscriptEntry {
    TranscriptEntry::Assistant {
        uuid: None,
        timestamp: None,
        text: text.into(),
        model: None,
    }
}

/// The history as short strings, one per item.
fn lines(view: &ChatView) -> Vec<String> {
    view.items()
        .iter()
        .map(|item| match item {
            Item::User(u) => format!("user: {}", u.text),
            Item::Assistant { text } => format!("assistant: {text}"),
            Item::Thinking { text, .. } => format!("thinking: {text}"),
            Item::Tool(t) => format!("tool: {}", t.summary().to_plain()),
            Item::Compaction { .. } => "compaction".into(),
            Item::Interrupted { text } => format!("interrupted: {text}"),
            Item::ApiError { text, .. } => format!("api error: {text}"),
            Item::Error { message } => format!("error: {message}"),
            Item::Notice { message, .. } => format!("notice: {message}"),
            Item::QueuedFlushed { message } => format!("queued: {message}"),
            Item::KilledTask { message } => format!("killed: {message}"),
        })
        .collect()
}

#[test]
fn hydrate_pairs_tool_results_with_their_calls() {
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(
        vec![
            t_user("u1", "build it"),
            TranscriptEntry::Thinking { text: "hmm".into() },
            t_assistant("On it."),
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "cargo build"}),
            },
            TranscriptEntry::ToolResult {
                tool_use_id: "t1".into(),
                output: "Finished".into(),
                is_error: false,
            },
            TranscriptEntry::Compaction {
                pre_tokens: Some(100),
                post_tokens: Some(10),
            },
        ],
        false,
    ));
    assert_eq!(view.title(), "Fix the build");
    assert_eq!(
        lines(&view),
        [
            "user: build it",
            "thinking: hmm",
            "assistant: On it.",
            "tool: Bash cargo build · exit 0",
            "compaction",
        ]
    );
    assert!(!view.running());
    assert_eq!(view.last_seq(), None);
}

#[test]
fn live_frames_stream_into_items() {
    let mut view = ChatView::new("web", SESSION);
    assert!(view.apply(&frame("j1", 1, user("u1", "hi"))));
    assert!(view.running());
    view.apply(&frame(
        "j1",
        2,
        ChatEvent::Thinking(TextDelta {
            text: "Let me".into(),
        }),
    ));
    view.apply(&frame(
        "j1",
        3,
        ChatEvent::Thinking(TextDelta {
            text: " think.".into(),
        }),
    ));
    view.apply(&frame("j1", 4, text("Hel")));
    view.apply(&frame("j1", 5, text("lo.")));
    view.apply(&frame(
        "j1",
        6,
        tool_start("t1", "Read", json!({"file_path": "src/lib.rs"})),
    ));
    assert_eq!(
        lines(&view).last().map(String::as_str),
        Some("tool: Read src/lib.rs …")
    );
    view.apply(&frame(
        "j1",
        7,
        tool_call(
            "t1",
            "Read",
            json!({"file_path": "src/lib.rs"}),
            "1\ta\n2\tb",
            false,
        ),
    ));
    assert!(!view.apply(&frame("j1", 8, boundary())));
    view.apply(&frame("j1", 9, text("Second message.")));
    view.apply(&frame("j1", 10, complete(true)));
    assert!(!view.running());
    assert_eq!(view.last_seq(), Some(10));
    assert_eq!(view.job_id(), Some("j1"));
    assert_eq!(
        lines(&view),
        [
            "user: hi",
            "thinking: Let me think.",
            "assistant: Hello.",
            "tool: Read src/lib.rs · 2 lines",
            "assistant: Second message.",
        ]
    );
}

#[test]
fn frames_of_another_chat_are_ignored() {
    let mut view = ChatView::new("web", "other");
    assert!(!view.apply(&frame("j1", 1, user("u1", "hi"))));
    assert!(view.items().is_empty());
    assert_eq!(view.last_seq(), None);
}

/// The transcript already holds the start of the running turn; the replay starts the turn
/// over from its chat:user frame. Each line shows once.
#[test]
fn a_replayed_running_turn_replaces_its_hydrated_start() {
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(
        vec![
            t_user("u0", "earlier question"),
            t_assistant("earlier answer"),
            t_user("u1", "run the tests"),
            t_assistant("Running them."),
            TranscriptEntry::ToolUse {
                tool_use_id: "t1".into(),
                name: "Bash".into(),
                input: json!({"command": "cargo test"}),
            },
        ],
        true,
    ));
    assert!(view.running());
    let replay = [
        user("u1", "run the tests"),
        text("Running them."),
        tool_start("t1", "Bash", json!({"command": "cargo test"})),
        boundary(),
        tool_call("t1", "Bash", json!({"command": "cargo test"}), "ok", false),
        text("All green."),
    ];
    for (i, event) in replay.into_iter().enumerate() {
        view.apply(&frame("j1", 40 + i as u64, event));
    }
    assert_eq!(
        lines(&view),
        [
            "user: earlier question",
            "assistant: earlier answer",
            "user: run the tests",
            "assistant: Running them.",
            "tool: Bash cargo test · exit 0",
            "assistant: All green.",
        ]
    );
    assert!(matches!(&view.items()[2], Item::User(u) if !u.hydrated));
}

/// The client that started a chat follows it before its transcript is read: frames that
/// came first survive the (empty or partial) transcript, and the replay after it adds
/// nothing twice.
#[test]
fn frames_before_the_first_transcript_are_kept() {
    // The transcript was not written yet.
    let mut view = ChatView::new("web", SESSION);
    view.apply(&frame("j1", 1, user("u1", "what is in the file?")));
    view.apply(&frame(
        "j1",
        2,
        tool_start("t1", "Read", json!({"file_path": "a.txt"})),
    ));
    view.apply(&frame("j1", 3, text("It says ")));
    view.hydrate(&transcript(Vec::new(), true));
    assert!(view.apply(&frame("j1", 4, text("hello."))));
    for (seq, event) in [
        (1, user("u1", "what is in the file?")),
        (2, tool_start("t1", "Read", json!({"file_path": "a.txt"}))),
        (3, text("It says ")),
        (4, text("hello.")),
    ] {
        assert!(!view.apply(&frame("j1", seq, event)), "seq {seq} again");
    }
    view.apply(&frame(
        "j1",
        5,
        tool_call("t1", "Read", json!({"file_path": "a.txt"}), "hello.", false),
    ));
    assert_eq!(
        lines(&view),
        [
            "user: what is in the file?",
            "tool: Read a.txt · 1 line",
            "assistant: It says hello.",
        ]
    );
    assert!(
        matches!(&view.items()[1], Item::Tool(t) if t.result.is_some()),
        "the result found its call"
    );

    // The transcript had the turn's start already: its copy gives way to the live one.
    let mut view = ChatView::new("web", SESSION);
    view.apply(&frame("j1", 1, user("u1", "count")));
    view.apply(&frame("j1", 2, text("one ")));
    view.hydrate(&transcript(
        vec![
            t_user("u0", "earlier"),
            t_assistant("before"),
            t_user("u1", "count"),
        ],
        true,
    ));
    view.apply(&frame("j1", 3, text("two")));
    assert_eq!(
        lines(&view),
        [
            "user: earlier",
            "assistant: before",
            "user: count",
            "assistant: one two",
        ]
    );
    assert_eq!(view.entry_item(0), Some(0));
    assert_eq!(view.entry_item(2), None, "its copy is gone");

    // A later hydration (a resync) starts over: the replay brings the turn back.
    view.hydrate(&transcript(vec![t_user("u0", "earlier")], true));
    assert_eq!(lines(&view), ["user: earlier"]);
    assert!(view.apply(&frame("j1", 1, user("u1", "count"))));
}

/// A reconnect re-subscribes with lastSeq; a replay that overlaps what was applied (or a
/// whole replay of the turn) adds nothing twice.
#[test]
fn seqs_already_applied_are_dropped_after_a_reconnect() {
    let mut view = ChatView::new("web", SESSION);
    view.apply(&frame("j1", 1, user("u1", "count")));
    view.apply(&frame("j1", 2, text("one ")));
    view.apply(&frame("j1", 3, text("two ")));
    // Reconnected: the hub replays from the start of the turn, then goes on.
    assert!(!view.apply(&frame("j1", 1, user("u1", "count"))));
    assert!(!view.apply(&frame("j1", 2, text("one "))));
    assert!(!view.apply(&frame("j1", 3, text("two "))));
    assert!(view.apply(&frame("j1", 4, text("three"))));
    assert_eq!(lines(&view), ["user: count", "assistant: one two three"]);
    assert_eq!(view.last_seq(), Some(4));
    // A restarted daemon counts from 1 again, with a new job.
    assert!(view.apply(&frame("j2", 1, user("u2", "again"))));
    assert_eq!(view.last_seq(), Some(1));
    assert_eq!(view.job_id(), Some("j2"));
    assert_eq!(lines(&view).len(), 3);
}

#[test]
fn a_replay_without_message_ids_matches_the_last_hydrated_turn_by_text() {
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(
        vec![t_user("u1", "go"), t_assistant("Going.")],
        true,
    ));
    view.apply(&frame(
        "j1",
        1,
        ChatEvent::User(UserTurn {
            message_id: None,
            text: "go".into(),
            attribution: None,
        }),
    ));
    view.apply(&frame("j1", 2, text("Going.")));
    assert_eq!(lines(&view), ["user: go", "assistant: Going."]);
}

#[test]
fn tool_summaries_say_what_the_call_did() {
    let bash = |output: &str, is_error: bool| ToolItem {
        tool_use_id: "t".into(),
        name: "Bash".into(),
        input: json!({"command": "cargo test --workspace\n  --quiet", "description": "x"}),
        result: Some(ToolResult {
            output: output.into(),
            is_error,
            detail: None,
        }),
        expanded: false,
        full: false,
    };
    assert_eq!(
        bash("test result: ok", false).summary().to_plain(),
        "Bash cargo test --workspace … · exit 0"
    );
    let failed = bash("Exit code 101\nerror: test failed", true).summary();
    assert_eq!(failed.status, ToolStatus::Failed("exit 101".into()));
    let rejected = bash("User rejected tool use", true).summary();
    assert_eq!(
        rejected.status,
        ToolStatus::Failed("User rejected tool use".into())
    );

    let edit = ToolItem {
        tool_use_id: "t".into(),
        name: "Edit".into(),
        input: json!({
            "file_path": "/src/web/login.ts",
            "old_string": "a\nb",
            "new_string": "a\nb\nc\nd\n",
        }),
        result: Some(ToolResult {
            output: "The file has been updated.".into(),
            is_error: false,
            detail: None,
        }),
        expanded: false,
        full: false,
    };
    let summary = edit.summary();
    assert!(summary.arg_is_path);
    assert_eq!(summary.to_plain(), "Edit /src/web/login.ts · +4 -2");

    let write = ToolItem {
        name: "Write".into(),
        input: json!({"file_path": "notes.md", "content": "one\ntwo\nthree"}),
        ..edit.clone()
    };
    assert_eq!(write.summary().to_plain(), "Write notes.md · 3 lines");

    let read = ToolItem {
        name: "Read".into(),
        input: json!({"file_path": "a.rs"}),
        result: Some(ToolResult {
            output: "partial".into(),
            is_error: false,
            detail: Some(json!({"file": {"numLines": 42}})),
        }),
        ..edit.clone()
    };
    assert_eq!(read.summary().to_plain(), "Read a.rs · 42 lines");

    let grep = ToolItem {
        name: "Grep".into(),
        input: json!({"pattern": "fn main"}),
        result: Some(ToolResult {
            output: "Found 3 files\na\nb\nc".into(),
            is_error: false,
            detail: None,
        }),
        ..edit.clone()
    };
    assert_eq!(grep.summary().to_plain(), "Grep fn main · Found 3 files");

    let running = ToolItem {
        result: None,
        ..edit
    };
    assert_eq!(running.summary().status, ToolStatus::Running);
}

#[test]
fn thinking_starts_collapsed_and_toggles() {
    let mut view = ChatView::new("web", SESSION);
    view.apply(&frame(
        "j1",
        1,
        ChatEvent::Thinking(TextDelta {
            text: "a\nb".into(),
        }),
    ));
    assert!(matches!(
        &view.items()[0],
        Item::Thinking {
            expanded: false,
            ..
        }
    ));
    assert!(!view.toggle_expand(), "no cursor yet");
    assert!(view.select_prev_item());
    assert!(view.toggle_expand());
    assert!(matches!(
        &view.items()[0],
        Item::Thinking { expanded: true, .. }
    ));
}

#[test]
fn injected_turns_keep_their_attribution() {
    let mut view = ChatView::new("web", SESSION);
    let sent = Attribution::Sent {
        from_session_id: "s-child".into(),
        from_project: "web".into(),
        from_title: Some("Child".into()),
    };
    view.apply(&frame(
        "j1",
        1,
        ChatEvent::User(UserTurn {
            message_id: Some("u1".into()),
            text: "report".into(),
            attribution: Some(sent.clone()),
        }),
    ));
    view.apply(&frame("j1", 2, text("Thanks.")));
    view.select_prev_item();
    assert_eq!(view.cursor(), Some(1));
    assert_eq!(view.cursor_attribution(), None);
    view.select_prev_item();
    assert_eq!(view.cursor_attribution(), Some(&sent));
    view.select_prev_item();
    assert_eq!(view.cursor(), Some(0), "stays on the first item");
}

#[test]
fn failures_and_notices_show_inline_once() {
    let mut view = ChatView::new("web", SESSION);
    view.apply(&frame("j1", 1, user("u1", "hi")));
    view.apply(&frame(
        "j1",
        2,
        ChatEvent::Error(ChatError {
            message: "API Error: 529".into(),
        }),
    ));
    view.apply(&frame(
        "j1",
        3,
        ChatEvent::Notice(Notice {
            kind: NoticeKind::ApiError,
            message: "Overloaded.".into(),
        }),
    ));
    view.apply(&frame("j1", 4, complete(false)));
    assert_eq!(
        lines(&view),
        ["user: hi", "error: API Error: 529", "notice: Overloaded."]
    );
    // A failed turn with no error frame still says it failed.
    view.apply(&frame("j2", 5, user("u2", "again")));
    view.apply(&frame("j2", 6, complete(false)));
    assert_eq!(
        lines(&view).last().map(String::as_str),
        Some("error: the turn failed")
    );
}

/// The daemon's own failures (claude could not start, crashed, printed garbage) come as a
/// chat:error and a chat:notice with the same sentence: the pane says it once, as the notice
/// (whose kind draws it).
#[test]
fn an_error_and_a_notice_saying_the_same_show_once() {
    let mut view = ChatView::new("web", SESSION);
    view.apply(&frame("j1", 1, user("u1", "hi")));
    let said = "claude exited with status 1 (no such file)";
    view.apply(&frame(
        "j1",
        2,
        ChatEvent::Error(ChatError {
            message: said.into(),
        }),
    ));
    view.apply(&frame(
        "j1",
        3,
        ChatEvent::Notice(Notice {
            kind: NoticeKind::Crashed,
            message: said.into(),
        }),
    ));
    view.apply(&frame("j1", 4, complete(false)));
    assert_eq!(lines(&view), ["user: hi", &format!("notice: {said}")]);
}

#[test]
fn expand_all_applies_to_tools_to_come() {
    let mut view = ChatView::new("web", SESSION);
    view.apply(&frame("j1", 1, tool_start("t1", "Bash", json!({}))));
    view.expand_all_tools(true);
    view.apply(&frame("j1", 2, tool_start("t2", "Bash", json!({}))));
    assert!(
        view.items()
            .iter()
            .all(|i| matches!(i, Item::Tool(t) if t.expanded))
    );
    view.expand_all_tools(false);
    assert!(
        view.items()
            .iter()
            .all(|i| matches!(i, Item::Tool(t) if !t.expanded))
    );
}

#[test]
fn rehydrating_keeps_expanded_tools() {
    let entries = vec![
        TranscriptEntry::ToolUse {
            tool_use_id: "t1".into(),
            name: "Bash".into(),
            input: json!({"command": "ls"}),
        },
        TranscriptEntry::ToolResult {
            tool_use_id: "t1".into(),
            output: "a".into(),
            is_error: false,
        },
    ];
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(entries.clone(), false));
    view.select_next_item();
    view.toggle_expand();
    view.hydrate(&transcript(entries, false));
    assert!(matches!(&view.items()[0], Item::Tool(t) if t.expanded));
}

#[test]
fn transcript_entries_map_to_items_and_a_jump_waits_for_them() {
    let entries = vec![
        t_user("u1", "find the race"),
        TranscriptEntry::ToolUse {
            tool_use_id: "t1".into(),
            name: "Bash".into(),
            input: json!({"command": "rg cookie"}),
        },
        TranscriptEntry::ToolResult {
            tool_use_id: "t1".into(),
            output: "cookie.ts".into(),
            is_error: false,
        },
        t_assistant("found it"),
        TranscriptEntry::ToolResult {
            tool_use_id: "gone".into(),
            output: "orphan".into(),
            is_error: false,
        },
    ];
    let mut view = ChatView::new("web", SESSION);
    // Asked before the transcript is read: done once it is.
    assert!(!view.jump_to_entry(2));
    assert_eq!(view.jumped(), None);
    view.hydrate(&transcript(entries.clone(), false));
    assert_eq!(view.entry_item(0), Some(0));
    assert_eq!(view.entry_item(1), Some(1));
    assert_eq!(view.entry_item(2), Some(1), "a result shows in its call");
    assert_eq!(view.entry_item(3), Some(2));
    assert_eq!(view.entry_item(4), Some(3), "an orphan result is an item");
    assert_eq!(view.entry_item(5), None);
    assert_eq!(view.jumped(), Some(1));
    assert_eq!(view.cursor(), Some(1));
    assert!(matches!(&view.items()[1], Item::Tool(t) if t.expanded));
    assert!(!view.following());
    // An entry the transcript does not have changes nothing; moving drops the mark.
    assert!(!view.jump_to_entry(9));
    assert_eq!(view.jumped(), Some(1));
    assert!(view.jump_to_entry(3));
    assert_eq!(view.jumped(), Some(2));
    view.clear_jumped();
    assert_eq!(view.jumped(), None);
    // Reading the transcript again does not jump again.
    view.hydrate(&transcript(entries, false));
    assert_eq!(view.jumped(), None);
}

#[test]
fn scrolling_up_stops_following_and_to_end_resumes() {
    let mut view = ChatView::new("web", SESSION);
    assert!(view.following());
    view.scroll_by(-3);
    assert!(!view.following());
    view.to_end();
    assert!(view.following());
    view.to_start();
    assert!(!view.following());
}

/// A chat row that says its last turn was cut short, and why.
fn cut_short_row(why: Option<&str>) -> ChatSummary {
    ChatSummary {
        session_id: SESSION.into(),
        project_slug: "web".into(),
        title: "Fix the build".into(),
        interrupted: true,
        interrupted_reason: why.map(str::to_owned),
        ..ChatSummary::default()
    }
}

#[test]
fn a_turn_cut_short_keeps_what_streamed_when_the_transcript_has_nothing_of_it() {
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(
        vec![t_user("u0", "hi"), t_assistant("Hello.")],
        false,
    ));
    view.apply(&frame("j1", 1, user("u1", "fix it")));
    view.apply(&frame("j1", 2, text("Looking at the bu")));
    // The daemon died mid-stream; the next one has the message but not the reply.
    let mut t = transcript(
        vec![
            t_user("u0", "hi"),
            t_assistant("Hello."),
            t_user("u1", "fix it"),
        ],
        false,
    );
    t.chat.interrupted = true;
    t.chat.interrupted_reason = Some("paddockd stopped while it ran".into());
    view.hydrate(&t);
    assert_eq!(
        lines(&view),
        [
            "user: hi",
            "assistant: Hello.",
            "user: fix it",
            "assistant: Looking at the bu"
        ]
    );
    assert_eq!(view.cut_short(), Some("paddockd stopped while it ran"));
    // Nothing more is appended to the partial reply; a new turn clears the notice.
    view.apply(&frame("j2", 1, user("u2", "continue")));
    view.apply(&frame("j2", 2, text("Done.")));
    assert_eq!(view.cut_short(), None);
    assert_eq!(
        lines(&view)[3..],
        [
            "assistant: Looking at the bu",
            "user: continue",
            "assistant: Done."
        ]
    );
}

#[test]
fn a_later_transcript_with_the_reply_replaces_what_streamed() {
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(vec![t_user("u0", "hi")], false));
    view.apply(&frame("j1", 1, user("u1", "fix it")));
    view.apply(&frame("j1", 2, text("Looking")));
    view.hydrate(&transcript(
        vec![
            t_user("u0", "hi"),
            t_user("u1", "fix it"),
            t_assistant("Fixed."),
        ],
        false,
    ));
    assert_eq!(
        lines(&view),
        ["user: hi", "user: fix it", "assistant: Fixed."]
    );
    // A resync while it still runs starts the turn over (the replay follows).
    view.apply(&frame("j2", 1, user("u2", "more")));
    view.apply(&frame("j2", 2, text("Partly")));
    view.hydrate(&transcript(
        vec![
            t_user("u0", "hi"),
            t_user("u1", "fix it"),
            t_assistant("Fixed."),
        ],
        true,
    ));
    assert_eq!(lines(&view).len(), 3, "{:?}", lines(&view));
    assert_eq!(view.cut_short(), None);
}

#[test]
fn the_cut_short_notice_follows_the_chat_row_and_a_killed_turn_adds_no_task_line() {
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(vec![t_user("u0", "hi")], false));
    view.apply(&frame("j1", 1, user("u1", "go")));
    view.apply(&frame(
        "j1",
        2,
        ChatEvent::KilledTask(paddock_proto::KilledTask {
            task_id: None,
            message: "claude exited with signal 9; continue the chat to pick it up".into(),
        }),
    ));
    assert!(
        !lines(&view).iter().any(|l| l.starts_with("killed")),
        "{:?}",
        lines(&view)
    );
    view.apply(&frame("j1", 3, complete(false)));
    view.take_row(&cut_short_row(Some("claude exited with signal 9")));
    assert_eq!(view.cut_short(), Some("claude exited with signal 9"));
    // An older daemon gives no reason.
    view.take_row(&cut_short_row(None));
    assert_eq!(view.cut_short(), Some("the turn did not finish"));
    view.take_row(&ChatSummary::default());
    assert_eq!(view.cut_short(), None);
    // A task the turn waited on is still its own line.
    view.apply(&frame(
        "j1",
        4,
        ChatEvent::KilledTask(paddock_proto::KilledTask {
            task_id: Some("bash_3".into()),
            message: "Background task was terminated".into(),
        }),
    ));
    assert_eq!(
        lines(&view).last().map(String::as_str),
        Some("killed: Background task was terminated")
    );
}

/// A first message claude never wrote comes hydrated without a uuid (the daemon's own record);
/// the turn that sends it again replaces it rather than showing it twice.
#[test]
fn a_first_message_sent_again_replaces_its_copy_without_a_uuid() {
    let mut view = ChatView::new("web", SESSION);
    view.hydrate(&transcript(
        vec![TranscriptEntry::User {
            uuid: None,
            timestamp: None,
            text: "summarise the log".into(),
            attribution: None,
        }],
        false,
    ));
    view.apply(&frame("j1", 1, user("u9", "summarise the log")));
    view.apply(&frame("j1", 2, text("Done.")));
    assert_eq!(
        lines(&view),
        ["user: summarise the log", "assistant: Done."]
    );
}
