//! `paddock trigger ls|add|rm|fire`: schedules and hooks.

use std::path::Path;

use anyhow::{Context as _, anyhow};
use paddock_proto::{
    Fired, HookEvent, MissedPolicy, SessionPolicy, TriggerFire, TriggerInfo, TriggerKind,
    TriggerList, TriggerRef, TriggerRemove, TriggerSet, TriggerSpec,
};

use super::Context;
use super::output::{eprint, print, print_json};
use crate::cli::{TriggerAddArgs, TriggerCmd, TriggerFireArgs, TriggerLsArgs};
use crate::client::Client;
use crate::format::{self, ROOT_SLUG, Saved, project_label};

/// What `-` stands for wherever a text may come from stdin.
const STDIN: &str = "-";

pub async fn run(ctx: &Context, action: TriggerCmd) -> anyhow::Result<()> {
    match action {
        TriggerCmd::Ls(args) => ls(ctx, args).await,
        TriggerCmd::Add(args) => add(ctx, *args).await,
        TriggerCmd::Rm(args) => {
            let project_slug = args.project.unwrap_or_else(|| ROOT_SLUG.to_owned());
            let client = ctx.connect().await?;
            let request = TriggerRemove(TriggerRef {
                project_slug: project_slug.clone(),
                name: args.name.clone(),
            });
            client.call(request).await?;
            print(&format!(
                "removed trigger {} from {}\n",
                args.name,
                project_label(&project_slug)
            ))
        }
        TriggerCmd::Fire(args) => fire(ctx, args).await,
    }
}

async fn ls(ctx: &Context, args: TriggerLsArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    // No -p means every project here (unlike `ls`), as in `history`: a schedule anywhere may
    // start a chat.
    let request = TriggerList {
        project_slug: args.project.clone(),
    };
    let triggers = client.call(request).await?;
    if args.json {
        return print_json(&triggers);
    }
    if triggers.triggers.is_empty() {
        match &args.project {
            Some(slug) => eprint(&format!("no triggers in {}\n", project_label(slug))),
            None => eprint("no triggers yet; `paddock trigger add --help` says how to add one\n"),
        }
        return Ok(());
    }
    print(&format::trigger_table(
        &triggers.triggers,
        &chrono::Local::now(),
    ))
}

async fn add(ctx: &Context, args: TriggerAddArgs) -> anyhow::Result<()> {
    // Everything that can be wrong with the command line is found before the daemon is asked.
    let prompt = prompt_from(&args)?;
    let spec = spec_from(&args, prompt)?;
    let project_slug = args.project.unwrap_or_else(|| ROOT_SLUG.to_owned());
    let client = ctx.connect().await?;
    let saved = exists(&client, &project_slug, &args.name).await;
    let request = TriggerSet {
        project_slug,
        name: args.name,
        spec,
    };
    let trigger: TriggerInfo = *client.call(request).await?;
    if args.json {
        return print_json(&trigger);
    }
    print(&format::trigger_saved(
        &trigger,
        saved,
        &chrono::Local::now(),
    ))
}

/// Whether a trigger of that name is there already, so `add` can say "replaced". Only a
/// courtesy: when the list cannot be had, the set itself says what is wrong.
async fn exists(client: &Client, project_slug: &str, name: &str) -> Saved {
    let request = TriggerList {
        project_slug: Some(project_slug.to_owned()),
    };
    match client.call(request).await {
        Ok(list) => {
            if list
                .triggers
                .iter()
                .any(|t| t.project_slug == project_slug && t.name == name)
            {
                Saved::Replaced
            } else {
                Saved::Added
            }
        }
        _ => Saved::Unknown,
    }
}

/// The prompt of `trigger add`: --prompt TEXT, --prompt-file FILE, or stdin (`-` in any of
/// the three places).
fn prompt_from(args: &TriggerAddArgs) -> anyhow::Result<String> {
    let prompt = match (&args.prompt, &args.prompt_file, &args.stdin) {
        (Some(text), _, _) if text != STDIN => text.clone(),
        (_, Some(file), _) if file != Path::new(STDIN) => std::fs::read_to_string(file)
            .with_context(|| format!("cannot read the prompt from {}", file.display()))?,
        (None, None, None) => {
            // clap requires one of them; this is only a safety net.
            return Err(anyhow!(
                "a trigger needs a prompt: --prompt TEXT, --prompt-file FILE, or - for stdin"
            ));
        }
        _ => read_stdin("the prompt")?,
    };
    if prompt.trim().is_empty() {
        return Err(anyhow!("the prompt is empty; nothing was saved"));
    }
    Ok(prompt)
}

/// The spec `trigger:set` carries, from the command line: a schedule for --cron or --every, a
/// hook for --on (clap lets exactly one through). The daemon checks the cron expression, the
/// zone and the interval; only what it could not tell apart from a shell slip is checked here.
fn spec_from(args: &TriggerAddArgs, prompt: String) -> anyhow::Result<TriggerSpec> {
    if let Some(cron) = &args.cron {
        let fields = cron.split_whitespace().count();
        if fields != 5 {
            // Most often an unquoted expression, cut by the shell (and its `*` expanded).
            return Err(anyhow!(
                "--cron takes five fields (minute hour day-of-month month day-of-week), not \
                 {fields}: quote the expression, e.g. --cron '0 2 * * *'"
            ));
        }
    }
    let on = args.on.map(HookEvent::from);
    if on != Some(HookEvent::FileChanged) && (!args.paths.is_empty() || args.debounce.is_some()) {
        return Err(anyhow!(
            "--path and --debounce are for --on file_changed only"
        ));
    }
    let kind = match (&args.cron, &args.every, args.on) {
        (None, None, Some(_)) => TriggerKind::Hook,
        (Some(_), None, None) | (None, Some(_), None) => TriggerKind::Schedule,
        // clap's `when` group lets exactly one through; this is only a safety net.
        _ => {
            return Err(anyhow!(
                "give exactly one of --cron, --every and --on: a trigger is a schedule or a hook"
            ));
        }
    };
    Ok(TriggerSpec {
        kind,
        prompt,
        cron: args.cron.as_ref().map(|c| c.trim().to_owned()),
        every: args.every.as_ref().map(|e| e.trim().to_owned()),
        timezone: args.tz.clone(),
        missed: args.missed.map(MissedPolicy::from).unwrap_or_default(),
        on,
        paths: args.paths.clone(),
        debounce_secs: args.debounce,
        session: if args.resume {
            SessionPolicy::Resume
        } else {
            SessionPolicy::New
        },
        model: args.model.clone(),
        enabled: !args.disabled,
        approval_timeout_secs: args.approval_timeout,
    })
}

async fn fire(ctx: &Context, args: TriggerFireArgs) -> anyhow::Result<()> {
    let message = match (&args.message, &args.stdin) {
        (Some(text), _) if text != STDIN => Some(text.clone()),
        (None, None) => None,
        _ => Some(read_stdin("the message")?),
    };
    if message.as_deref().is_some_and(|m| m.trim().is_empty()) {
        return Err(anyhow!("the message is empty; nothing was fired"));
    }
    let client = ctx.connect().await?;
    let request = TriggerFire {
        project_slug: args.project.unwrap_or_else(|| ROOT_SLUG.to_owned()),
        name: args.name,
        message,
    };
    let fired = client.call(request).await?;
    if args.json {
        return print_json(&fired);
    }
    match fired_outcome(&fired)? {
        Outcome::Ran(session_id) => print(&format!("{session_id}\n")),
        Outcome::Skipped(reason) => {
            // A skip is a normal outcome (the previous run is still going): exit 0, and
            // nothing on stdout for a script to mistake for a session id.
            eprint(&format!("skipped: {reason}\n"));
            Ok(())
        }
    }
}

/// What a fire came to.
#[derive(Debug, PartialEq, Eq)]
enum Outcome<'a> {
    Ran(&'a str),
    Skipped(&'a str),
}

fn fired_outcome(fired: &Fired) -> anyhow::Result<Outcome<'_>> {
    match (&fired.session_id, &fired.skipped) {
        (_, Some(reason)) => Ok(Outcome::Skipped(reason)),
        (Some(session_id), None) => Ok(Outcome::Ran(session_id)),
        (None, None) => Err(anyhow!(crate::client::ClientError::Protocol(
            "trigger:fire was answered with neither a chat nor a reason for skipping".into()
        ))),
    }
}

/// Reads all of stdin: a prompt or a message given as `-`.
fn read_stdin(what: &str) -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .with_context(|| format!("could not read {what} from stdin"))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    use crate::cli::{Cli, Cmd};

    fn add_args(args: &[&str]) -> TriggerAddArgs {
        let argv = ["paddock", "trigger", "add"].iter().chain(args);
        match Cli::try_parse_from(argv) {
            Ok(Cli {
                command:
                    Some(Cmd::Trigger {
                        action: TriggerCmd::Add(args),
                    }),
                ..
            }) => *args,
            other => panic!("not trigger add: {other:?}"),
        }
    }

    fn spec(args: &[&str]) -> anyhow::Result<TriggerSpec> {
        let args = add_args(args);
        let prompt = prompt_from(&args)?;
        spec_from(&args, prompt)
    }

    #[test]
    fn a_cron_schedule_is_the_golden_spec() -> anyhow::Result<()> {
        let spec = spec(&[
            "nightly-backup",
            "--cron",
            "0 2 * * *",
            "--tz",
            "Europe/Berlin",
            "--missed",
            "run_once",
            "--resume",
            "--prompt",
            "Check last night's backup and report anything odd.",
        ])?;
        // The spec of PROTOCOL's golden `request.trigger_set`, field for field.
        assert_eq!(
            serde_json::to_value(&spec)?,
            serde_json::json!({
                "kind": "schedule",
                "prompt": "Check last night's backup and report anything odd.",
                "cron": "0 2 * * *",
                "timezone": "Europe/Berlin",
                "missed": "run_once",
                "session": "resume"
            })
        );
        Ok(())
    }

    #[test]
    fn an_interval_with_a_model_disabled() -> anyhow::Result<()> {
        let spec = spec(&[
            "inbox",
            "-p",
            "webapp",
            "--every",
            "15m",
            "--model",
            "claude-haiku-4-5",
            "--disabled",
            "--prompt",
            "Check last night's backup and report anything odd.",
        ])?;
        assert_eq!(
            serde_json::to_value(&spec)?,
            serde_json::json!({
                "kind": "schedule",
                "prompt": "Check last night's backup and report anything odd.",
                "every": "15m",
                "model": "claude-haiku-4-5",
                "enabled": false
            })
        );
        Ok(())
    }

    #[test]
    fn a_file_hook_with_paths_and_debounce() -> anyhow::Result<()> {
        let spec = spec(&[
            "docs-changed",
            "--on",
            "file_changed",
            "--path",
            "docs/**/*.md",
            "--debounce",
            "10",
            "--prompt",
            "The docs changed: check the links.",
        ])?;
        assert_eq!(
            serde_json::to_value(&spec)?,
            serde_json::json!({
                "kind": "hook",
                "prompt": "The docs changed: check the links.",
                "on": "file_changed",
                "paths": ["docs/**/*.md"],
                "debounce_secs": 10
            })
        );
        let spec = spec_from(
            &add_args(&[
                "d",
                "--on",
                "file-changed",
                "--path",
                "a/**",
                "--path",
                "b/*",
                "--prompt",
                "p",
            ]),
            "p".into(),
        )?;
        assert_eq!(spec.paths, ["a/**", "b/*"]);
        Ok(())
    }

    #[test]
    fn every_event_makes_a_hook() -> anyhow::Result<()> {
        for (word, event) in [
            ("turn_completed", HookEvent::TurnCompleted),
            ("turn_failed", HookEvent::TurnFailed),
            ("child_finished", HookEvent::ChildFinished),
            ("file_changed", HookEvent::FileChanged),
            ("manual", HookEvent::Manual),
            ("archived", HookEvent::Archived),
        ] {
            let spec = spec(&["h", "--on", word, "--prompt", "p"])?;
            assert_eq!(spec.kind, TriggerKind::Hook);
            assert_eq!(spec.on, Some(event));
        }
        Ok(())
    }

    #[test]
    fn paths_are_for_file_hooks_only() {
        let err = spec(&[
            "h",
            "--on",
            "turn_completed",
            "--path",
            "x",
            "--prompt",
            "p",
        ]);
        assert!(err.is_err());
        let err = spec(&["h", "--on", "manual", "--debounce", "3", "--prompt", "p"]);
        assert!(err.is_err_and(|e| e.to_string().contains("--on file_changed only")),);
    }

    #[test]
    fn a_cron_cut_by_the_shell_is_caught_with_a_hint() {
        // `--cron 0 2 * * *` unquoted: clap sees `0` as the expression (and the rest as
        // stray arguments, which it refuses by itself).
        let err = spec(&["n", "--cron", "0", "--prompt", "p"]);
        assert!(err.is_err_and(|e| e.to_string().contains("quote the expression")));
        let err = spec(&["n", "--cron", "0 2 * * * *", "--prompt", "p"]);
        assert!(err.is_err_and(|e| e.to_string().contains("not 6")));
        // Extra blanks are no reason to refuse, and are not sent.
        let spec = spec(&["n", "--cron", "  0  2 * * *  ", "--prompt", "p"]);
        assert!(spec.is_ok_and(|s| s.cron.as_deref() == Some("0  2 * * *")));
    }

    #[test]
    fn a_blank_prompt_saves_nothing() {
        let err = spec(&["n", "--every", "1h", "--prompt", "  \n"]);
        assert!(err.is_err_and(|e| e.to_string().contains("the prompt is empty")));
    }

    #[test]
    fn the_prompt_can_come_from_a_file() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("prompt.md");
        std::fs::write(&file, "Check the docs.\nAll of them.\n")?;
        let path = file.to_string_lossy().into_owned();
        let spec = spec(&["n", "--every", "1h", "--prompt-file", &path])?;
        assert_eq!(spec.prompt, "Check the docs.\nAll of them.\n");
        let missing = dir.path().join("missing.md").to_string_lossy().into_owned();
        let err = spec_from_file_error(&missing);
        assert!(err.contains("cannot read the prompt from "), "{err}");
        Ok(())
    }

    fn spec_from_file_error(path: &str) -> String {
        match spec(&["n", "--every", "1h", "--prompt-file", path]) {
            Ok(spec) => format!("unexpectedly read {spec:?}"),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn a_fire_ran_or_was_skipped() {
        let ran = Fired {
            session_id: Some("s-1".into()),
            skipped: None,
        };
        assert!(matches!(fired_outcome(&ran), Ok(Outcome::Ran("s-1"))));
        let skipped = Fired {
            session_id: None,
            skipped: Some("the previous run is still going".into()),
        };
        assert!(matches!(
            fired_outcome(&skipped),
            Ok(Outcome::Skipped("the previous run is still going"))
        ));
        let neither = Fired {
            session_id: None,
            skipped: None,
        };
        assert!(fired_outcome(&neither).is_err());
    }
}
