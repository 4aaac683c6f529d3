//! What the Triggers view says: the question `f` or `d` asks, and what an act came to (in the
//! view, or on the status line when the view that asked is gone).

use paddock_proto::{Fired, Reply};

use super::{Act, Confirm, Said, TriggerId};
use crate::format::{project_label, trigger_when};
use crate::tui::fetch::unexpected;
use crate::tui::theme::Role;

/// An act's answer when no Triggers view asked for it (it closed since): said on the status
/// line.
pub fn act_notice(act: Act, result: &Result<Reply, String>) -> String {
    match result {
        Ok(Reply::Fired(Fired {
            skipped: Some(reason),
            ..
        })) => format!("the trigger was not fired: {reason}"),
        Ok(Reply::Fired(_)) => "the trigger fired".to_owned(),
        Ok(Reply::Ack) => "the trigger was removed".to_owned(),
        Ok(other) => format!("{}: {}", act.what(), unexpected(other)),
        Err(reason) => format!("{} failed: {reason}", act.what()),
    }
}

/// The question `f` or `d` asks.
pub(super) fn question(confirm: &Confirm) -> String {
    let id = &confirm.trigger;
    let project = project_label(&id.project_slug);
    if confirm.fire {
        format!("Fire {} in {project} now? y fires it.", id.name)
    } else {
        format!(
            "Remove {} from {project}'s project.toml? y removes it.",
            id.name
        )
    }
}

/// What an act came to, in a sentence.
pub(super) fn act_said(act: Act, id: &TriggerId, result: Result<Reply, String>) -> Said {
    let name = &id.name;
    let failed = |reason: String| Said {
        text: format!("Could not {} {name}: {reason}", act.verb()),
        role: Role::Error,
    };
    match (act, result) {
        (_, Err(reason)) => failed(reason),
        (
            Act::Fire,
            Ok(Reply::Fired(Fired {
                skipped: Some(reason),
                ..
            })),
        ) => Said {
            text: format!("{name} was not fired: {reason}"),
            role: Role::Warning,
        },
        (
            Act::Fire,
            Ok(Reply::Fired(Fired {
                session_id: Some(session_id),
                ..
            })),
        ) => Said {
            text: format!(
                "Fired {name}: it runs in chat {}.",
                session_id.chars().take(8).collect::<String>()
            ),
            role: Role::Success,
        },
        (Act::Fire, Ok(Reply::Fired(_))) => {
            failed("paddockd answered with neither a chat nor a reason for skipping".to_owned())
        }
        (Act::Save, Ok(Reply::Trigger(t))) => Said {
            text: format!(
                "Saved {} in {}: {}.",
                t.name,
                project_label(&t.project_slug),
                trigger_when(&t.spec)
            ),
            role: Role::Success,
        },
        (Act::Remove, Ok(Reply::Ack)) => Said {
            text: format!("Removed {name} from {}.", project_label(&id.project_slug)),
            role: Role::Success,
        },
        (_, Ok(other)) => failed(unexpected(&other)),
    }
}
