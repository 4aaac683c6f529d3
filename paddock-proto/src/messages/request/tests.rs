//! The request/reply pairs against the committed golden replies: each pair takes the kind the
//! daemon answers with, and hands back every other kind untouched.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use super::*;
use crate::{ControlMessage, Outcome, ServerMessage};

/// One golden reply of each kind, by kind.
fn golden_replies() -> BTreeMap<&'static str, Reply> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut replies = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("reply.") {
            continue;
        }
        let line = std::fs::read(&path).unwrap();
        let Ok(ServerMessage::Control(ControlMessage::Response(response))) = crate::decode(&line)
        else {
            panic!("{name} is not a response");
        };
        let Outcome::Ok(reply) = response.outcome else {
            panic!("{name} is not a successful response");
        };
        replies.insert(reply.kind(), reply);
    }
    replies
}

#[test]
fn every_request_takes_the_reply_kind_it_is_answered_with() {
    let replies = golden_replies();
    for (request, kind, take) in PAIRS {
        let reply = replies
            .get(kind)
            .unwrap_or_else(|| panic!("no golden reply of kind {kind} (answer to {request})"));
        assert_eq!(
            take(reply.clone()),
            Ok(()),
            "{request} refused its own {kind}"
        );
    }
}

#[test]
fn a_reply_of_another_kind_is_handed_back() {
    let replies = golden_replies();
    for (request, kind, take) in PAIRS {
        for (other, reply) in replies.iter().filter(|(other, _)| *other != kind) {
            assert_eq!(
                take(reply.clone()),
                Err(reply.clone()),
                "{request} (answered with {kind}) took a {other}"
            );
        }
    }
}

#[test]
fn every_request_is_in_the_table_once() {
    let mut names: Vec<&str> = PAIRS.iter().map(|(name, _, _)| *name).collect();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "a wire name is in the table twice");
}

#[test]
fn a_call_is_sent_as_its_request() {
    fn sent<C: Call>(call: C) -> &'static str {
        let request: Request = call.into();
        assert_eq!(request.name(), C::NAME);
        C::NAME
    }
    assert_eq!(sent(Ping), "ping");
    assert_eq!(sent(DaemonStatusRequest), "daemon:status");
    assert_eq!(
        sent(ChatTranscript(SessionRef {
            session_id: "s".into()
        })),
        "chat:transcript"
    );
    assert_eq!(
        sent(ProjectOverviewRequest(ProjectRef {
            slug: String::new()
        })),
        "project:overview"
    );
}
