//! What the Triggers view says: the question `f` or `d` asks, and what an act came to (in the
//! view, or on the status line when the view that asked is gone).

use paddock_proto::Fired;

use super::{Confirm, Said, TriggerId};
use crate::format::{project_label, trigger_when};
use crate::tui::doing::Acted;
use crate::tui::theme::Role;

/// An act's answer when no Triggers view asked for it (it closed since): said on the status
/// line.
pub fn act_notice(acted: &Acted) -> String {
    match acted {
        Acted::Fired(Ok(Fired {
            skipped: Some(reason),
            ..
        })) => format!("the trigger was not fired: {reason}"),
        Acted::Fired(Ok(_)) => "the trigger fired".to_owned(),
        Acted::Removed(Ok(_)) => "the trigger was removed".to_owned(),
        Acted::Saved(Ok(_)) => "the trigger was saved".to_owned(),
        Acted::Fired(Err(reason)) | Acted::Removed(Err(reason)) | Acted::Saved(Err(reason)) => {
            format!("{} failed: {reason}", acted.act().what())
        }
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
pub(super) fn act_said(id: &TriggerId, acted: &Acted) -> Said {
    let name = &id.name;
    let failed = |reason: &str| Said {
        text: format!("Could not {} {name}: {reason}", acted.act().verb()),
        role: Role::Error,
    };
    match acted {
        Acted::Fired(Err(reason)) | Acted::Removed(Err(reason)) | Acted::Saved(Err(reason)) => {
            failed(reason)
        }
        Acted::Fired(Ok(Fired {
            skipped: Some(reason),
            ..
        })) => Said {
            text: format!("{name} was not fired: {reason}"),
            role: Role::Warning,
        },
        Acted::Fired(Ok(Fired {
            session_id: Some(session_id),
            ..
        })) => Said {
            text: format!(
                "Fired {name}: it runs in chat {}.",
                session_id.chars().take(8).collect::<String>()
            ),
            role: Role::Success,
        },
        Acted::Fired(Ok(_)) => {
            failed("paddockd answered with neither a chat nor a reason for skipping")
        }
        Acted::Saved(Ok(t)) => Said {
            text: format!(
                "Saved {} in {}: {}.",
                t.name,
                project_label(&t.project_slug),
                trigger_when(&t.spec)
            ),
            role: Role::Success,
        },
        Acted::Removed(Ok(_)) => Said {
            text: format!("Removed {name} from {}.", project_label(&id.project_slug)),
            role: Role::Success,
        },
    }
}
