//! The project's tool rules and "always", with the real CLI making the calls: a path is judged
//! by where it really leads (a link out of the project matches no rule of the project and is
//! shown as where it leads), a command line part by part, and "always" adds what allows the
//! call next time and nothing wider.

use paddock_tests::mock_api::MockApi;

use paddock_proto::{Approval, ApprovalDecision, ChatEvent, Reply, Request};

use crate::harness::*;
use crate::real_cli::{paddockd_bin, real_daemon};

/// The first tool call waiting in the approvals inbox; when none is asked before the turn of
/// `sent` ends, a failure that says what the turn did instead.
async fn wait_asked(c: &mut RawClient, sent: &paddock_proto::Sent) -> Approval {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    loop {
        let Reply::Approvals(a) = c.request(Request::ApprovalList).await.unwrap() else {
            panic!("not approvals")
        };
        if let Some(first) = a.approvals.into_iter().next() {
            return first;
        }
        if tokio::time::Instant::now() > deadline {
            let frames = c.frames_until_complete(&sent.session_id).await;
            let calls: Vec<_> = frames
                .iter()
                .filter_map(|f| match &f.event {
                    paddock_proto::ChatEvent::ToolCall(t) => Some((&t.name, &t.output)),
                    _ => None,
                })
                .collect();
            panic!("nothing was asked; the turn's tool calls: {calls:?}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

async fn answer(c: &mut RawClient, id: &str, decision: ApprovalDecision) {
    c.request(Request::ApprovalAnswer(paddock_proto::ApprovalAnswer {
        ids: vec![id.to_owned()],
        decision,
        message: None,
    }))
    .await
    .unwrap();
}

/// A chat of `project` that has run one turn: its MCP servers (paddock's tools) are up.
async fn warm_chat(c: &mut RawClient, project: &str) -> String {
    let sent = c.send_turn(project, None, "hello").await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success);
    sent.session_id
}

async fn project_rules(c: &mut RawClient, slug: &str) -> Vec<String> {
    let Reply::ProjectOverview(o) = c
        .request(Request::ProjectOverviewRequest(paddock_proto::ProjectRef {
            slug: slug.into(),
        }))
        .await
        .unwrap()
    else {
        panic!("not a project")
    };
    o.project.allowed_tools
}

/// A project `web` in a scratch folder with a link `out -> ../elsewhere` (as a cloned
/// repository can ship one), a secret in `elsewhere/`, and a sibling folder.
struct Layout {
    _tmp: tempfile::TempDir,
    base: std::path::PathBuf,
    web: std::path::PathBuf,
}

fn layout() -> Layout {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let web = base.join("web");
    for d in ["web", "elsewhere", "sibling"] {
        std::fs::create_dir_all(base.join(d)).unwrap();
    }
    std::fs::write(base.join("elsewhere/secret.txt"), "SECRET-8812\n").unwrap();
    std::fs::write(base.join("sibling/notes.txt"), "notes\n").unwrap();
    std::os::unix::fs::symlink(base.join("elsewhere"), web.join("out")).unwrap();
    Layout {
        _tmp: tmp,
        base,
        web,
    }
}

#[tokio::test]
async fn real_cli_a_write_through_a_link_out_of_the_project_is_asked_and_shown_where_it_leads() {
    let api = MockApi::start().await.unwrap();
    // What "always" on a Write at the project's top adds.
    let d = real_daemon(&api, |c| {
        c.allowed_tools = vec!["Write(**)".into(), "Edit(**)".into(), "Read(**)".into()];
        c.mcp_bin = Some(paddockd_bin());
    })
    .await;
    let mut c = d.client().await;
    let l = layout();
    create_project(&mut c, "web", &l.web).await;
    let pwned = l.base.join("elsewhere/pwned.txt");

    // Inside, the rule holds: written without asking.
    let sent = c
        .send_turn(
            "web",
            None,
            r#"mock:tool Write {"file_path":"inside.txt","content":"fine"}"#,
        )
        .await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success);
    assert_eq!(
        std::fs::read_to_string(l.web.join("inside.txt")).unwrap(),
        "fine"
    );

    // Through the link: asked, the real path shown, and "always" offers that one file.
    let sent = c
        .send_turn(
            "web",
            None,
            r#"mock:tool Write {"file_path":"out/pwned.txt","content":"pwned"}"#,
        )
        .await;
    let asked = wait_asked(&mut c, &sent).await;
    assert_eq!(asked.tool, "Write");
    assert!(!pwned.exists(), "written before anyone was asked");
    let preview = asked.preview.clone().unwrap_or_default();
    assert!(
        preview.starts_with(&format!(
            "{} (outside the project; named out/pwned.txt)",
            pwned.display()
        )),
        "{preview}"
    );
    assert_eq!(
        asked.always_rules,
        vec![format!("Write({})", pwned.display())]
    );
    answer(&mut c, &asked.id, ApprovalDecision::Deny).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success);
    assert!(!pwned.exists(), "a denied write wrote");

    // A Read through the link, and send_file of the file behind it: the same.
    let chat = warm_chat(&mut c, "web").await;
    for (tool, input) in [
        ("Read", r#"{"file_path":"out/secret.txt"}"#),
        (
            "mcp__paddock__send_file",
            r#"{"file_path":"out/secret.txt"}"#,
        ),
    ] {
        let sent = c
            .send_turn("web", Some(&chat), &format!("mock:tool {tool} {input}"))
            .await;
        let asked = wait_asked(&mut c, &sent).await;
        assert_eq!(asked.tool, tool);
        let secret = l.base.join("elsewhere/secret.txt");
        let preview = asked.preview.clone().unwrap_or_default();
        assert!(
            preview.contains(&format!(
                "{} (outside the project; named out/secret.txt)",
                secret.display()
            )),
            "{tool}: {preview}"
        );
        assert_eq!(
            asked.always_rules,
            vec![format!("{tool}({})", secret.display())],
            "{tool}"
        );
        answer(&mut c, &asked.id, ApprovalDecision::Deny).await;
        let frames = c.frames_until_complete(&sent.session_id).await;
        let leaked = frames.iter().any(|f| match &f.event {
            paddock_proto::ChatEvent::ToolCall(t) => t.output.contains("SECRET-8812"),
            _ => false,
        });
        assert!(!leaked, "{tool}: the file behind the link was read");
    }
    d.stop().await.unwrap();
}

#[tokio::test]
async fn real_cli_always_on_a_chained_command_allows_it_next_time_and_nothing_wider() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    let l = layout();
    create_project(&mut c, "web", &l.web).await;
    let chained = r#"mock:tool Bash {"command":"mkdir -p build && echo made > build/out.txt","description":"Make"}"#;

    let sent = c.send_turn("web", None, chained).await;
    let asked = wait_asked(&mut c, &sent).await;
    assert_eq!(
        asked.always_rules,
        vec!["Bash(mkdir:*)", "Bash(echo:*)", "Write(build/**)"],
        "every part, and the redirection as a write"
    );
    answer(&mut c, &asked.id, ApprovalDecision::Always).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success);
    assert_eq!(
        std::fs::read_to_string(l.web.join("build/out.txt")).unwrap(),
        "made\n"
    );
    assert_eq!(
        project_rules(&mut c, "web").await,
        vec!["Bash(mkdir:*)", "Bash(echo:*)", "Write(build/**)"],
        "exactly the rules it showed"
    );

    // The same call again, in a new chat: not asked.
    std::fs::remove_dir_all(l.web.join("build")).unwrap();
    let again = c.send_turn("web", None, chained).await;
    let frames = c.frames_until_complete(&again.session_id).await;
    assert!(complete_of(&frames).success);
    assert_eq!(
        std::fs::read_to_string(l.web.join("build/out.txt")).unwrap(),
        "made\n",
        "the chained command ran without asking"
    );

    // A command naming a file outside: its first word alone is not offered, and the rule
    // "always" adds for it allows that command, not the sibling beside it.
    let outside = format!(
        r#"mock:tool Bash {{"command":"cat {}","description":"Read"}}"#,
        l.base.join("sibling/notes.txt").display()
    );
    let sent = c.send_turn("web", None, &outside).await;
    let asked = wait_asked(&mut c, &sent).await;
    let exact = format!("Bash(cat {})", l.base.join("sibling/notes.txt").display());
    assert_eq!(asked.always_rules, vec![exact.clone()]);
    assert!(
        asked
            .preview
            .as_deref()
            .unwrap_or_default()
            .contains("(outside the project)"),
        "{:?}",
        asked.preview
    );
    answer(&mut c, &asked.id, ApprovalDecision::Always).await;
    c.frames_until_complete(&sent.session_id).await;
    let rules = project_rules(&mut c, "web").await;
    assert!(rules.contains(&exact), "{rules:?}");
    assert!(!rules.iter().any(|r| r == "Bash(cat:*)"), "{rules:?}");

    // A call no rule can cover says so before it is answered.
    let sent = c
        .send_turn(
            "web",
            None,
            r#"mock:tool Bash {"command":"echo $(id -u) > build/id","description":"Id"}"#,
        )
        .await;
    let asked = wait_asked(&mut c, &sent).await;
    assert!(asked.always_rules.is_empty(), "{:?}", asked.always_rules);
    assert!(
        asked
            .always_why_not
            .as_deref()
            .is_some_and(|w| w.contains("substitution")),
        "{:?}",
        asked.always_why_not
    );
    answer(&mut c, &asked.id, ApprovalDecision::Deny).await;
    c.frames_until_complete(&sent.session_id).await;
    d.stop().await.unwrap();
}

#[tokio::test]
async fn real_cli_always_on_a_send_file_from_outside_is_listed_by_the_project() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |c| c.mcp_bin = Some(paddockd_bin())).await;
    let mut c = d.client().await;
    let l = layout();
    create_project(&mut c, "web", &l.web).await;
    let secret = l.base.join("elsewhere/secret.txt");
    let call = format!(
        r#"mock:tool mcp__paddock__send_file {{"file_path":"{}"}}"#,
        secret.display()
    );
    let chat = warm_chat(&mut c, "web").await;
    let sent = c.send_turn("web", Some(&chat), &call).await;
    let asked = wait_asked(&mut c, &sent).await;
    let rule = format!("mcp__paddock__send_file({})", secret.display());
    assert_eq!(asked.always_rules, vec![rule.clone()]);
    answer(&mut c, &asked.id, ApprovalDecision::Always).await;
    let frames = c.frames_until_complete(&sent.session_id).await;
    assert!(complete_of(&frames).success);
    assert!(
        project_rules(&mut c, "web").await.contains(&rule),
        "the rule always added is the project's"
    );
    // And it covers the next call: sent without asking.
    let again = c.send_turn("web", Some(&chat), &call).await;
    let frames = c.frames_until_complete(&again.session_id).await;
    let sent_ok = frames.iter().any(|f| match &f.event {
        paddock_proto::ChatEvent::ToolCall(t) => t.name.ends_with("send_file") && !t.is_error,
        _ => false,
    });
    assert!(sent_ok, "the file was not sent the second time");
    d.stop().await.unwrap();
}

/// An answered call stops saying it waits: after the notice that a call waits for approval
/// comes `chat:answered`, naming that notice word for word and saying the answer, for a
/// deny (with the reason the agent got) and an allow.
#[tokio::test]
async fn real_cli_an_answered_call_says_its_answer_in_place_of_waiting() {
    let api = MockApi::start().await.unwrap();
    let d = real_daemon(&api, |_| {}).await;
    let mut c = d.client().await;
    for (decision, said) in [
        (ApprovalDecision::Deny, "Bash: denied (the user denied Bash"),
        (ApprovalDecision::Allow, "Bash: allowed"),
    ] {
        let sent = c
            .send_turn(
                "",
                None,
                r#"mock:tool Bash {"command":"touch answered-here","description":"Touch"}"#,
            )
            .await;
        let asked = wait_asked(&mut c, &sent).await;
        answer(&mut c, &asked.id, decision).await;
        let frames = c.frames_until_complete(&sent.session_id).await;
        let waiting = frames
            .iter()
            .find_map(|f| match &f.event {
                ChatEvent::Notice(n) if n.message.contains("is waiting for your approval") => {
                    Some(n.message.clone())
                }
                _ => None,
            })
            .expect("the waiting notice");
        let answered = frames
            .iter()
            .find_map(|f| match &f.event {
                ChatEvent::Answered(a) => Some(a.clone()),
                _ => None,
            })
            .expect("chat:answered");
        assert_eq!(answered.asked, waiting);
        assert_eq!(answered.decision, decision);
        assert!(answered.message.starts_with(said), "{answered:?}");
    }
    d.stop().await.unwrap();
}
