//! `paddock trigger`: schedules and hooks.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Subcommand, ValueEnum};
use paddock_proto::{HookEvent, MissedPolicy};

#[derive(Debug, Subcommand)]
pub enum TriggerCmd {
    /// List schedules and hooks with their next and last fire
    #[command(
        visible_alias = "list",
        long_about = "\
List triggers: every project's (or one's, with -p), one row each. Columns: the project \
(`(root)` for the root workspace); the trigger's name; its kind (schedule or hook); when it \
fires (`0 2 * * * Europe/Berlin`, `every 15m`, `on turn_completed`, `on file_changed docs/**`, \
`manual`: only `paddock trigger fire`); NEXT, a schedule's next fire in local time and how far \
away (`Nov 04 02:00 (in 15h 12m)`); LAST, the last fire and how its run went (completed, \
failed, running, skipped: the previous run was still going...); SESSION, `new` (a chat per \
fire) or `resume` with the start of the id of the chat it owns; and ENABLED, `no` for a \
trigger that does not fire by itself. A trigger that cannot run (a bad cron, an unknown time zone) has a line \
below it saying why.

--json prints the daemon's reply as one object: {\"triggers\": [{projectSlug, name, spec: \
{kind, prompt, cron, every, timezone, missed, on, paths, debounce_secs, session, model, \
enabled}, nextFire, lastFire, lastStatus, sessionId, problem}]}; times are RFC 3339 in UTC, \
and optional fields are left out when unknown or at their default (missed skip, session new, \
enabled true).",
        after_help = "\
Examples:
  paddock trigger ls
  paddock trigger ls -p web
  paddock trigger ls --json | jq -r '.triggers[] | select(.problem) | .name'"
    )]
    Ls(TriggerLsArgs),

    /// Add a schedule or a hook, or replace the one of that name
    #[command(
        override_usage = "paddock trigger add [OPTIONS] <NAME> (--cron <EXPR> | --every <DURATION> | \
--on <EVENT>) (--prompt <TEXT> | --prompt-file <FILE> | -)",
        long_about = "\
Add a trigger to a project, or replace the one of that name (all of it: give every option \
again). Exactly one of --cron, --every and --on says what it is: --cron and --every make a \
schedule, --on a hook. Every fire tells the chat the prompt, given as --prompt TEXT, \
--prompt-file FILE, or `-` to read it from stdin.

Each fire starts a new chat (of origin scheduled or hook); with --resume every fire continues \
the one chat the trigger owns instead, across fires and daemon restarts. A fire while the \
previous run is still going is skipped. A disabled trigger (--disabled) is kept but never \
fires by itself; add it again without --disabled to enable it.

Prints whether the trigger was added or replaced, then the trigger as saved, with a \
schedule's next fire in local time. The daemon checks the cron expression and the time zone: \
a bad one fails the command and nothing is saved.

--json prints the daemon's reply as one object: {projectSlug, name, spec, nextFire, ...} as \
one entry of `paddock trigger ls --json`.",
        after_help = "\
Examples:
  paddock trigger add nightly --cron '0 2 * * *' --tz Europe/Berlin --missed run_once \\
      --resume --prompt \"Check last night's backup and report anything odd.\"
  paddock trigger add inbox -p web --every 15m --model haiku --prompt-file inbox.md
  paddock trigger add review -p web --on turn_completed --prompt 'Review what was just done.'
  paddock trigger add docs -p web --on file_changed --path 'docs/**/*.md' --debounce 10 - < docs.md
  paddock trigger add ci-failed -p web --on manual --prompt 'Triage the failing CI run.'"
    )]
    Add(Box<TriggerAddArgs>),

    /// Remove a trigger (the chats it started stay)
    #[command(
        visible_alias = "remove",
        after_help = "\
Examples:
  paddock trigger rm nightly
  paddock trigger rm docs -p web

An unknown trigger fails the command."
    )]
    Rm(TriggerRefArgs),

    /// Fire a trigger now, out of turn; prints the session id of the chat it ran in
    #[command(
        long_about = "\
Fire a trigger now: a schedule out of turn, or a hook by hand (the scriptable equivalent of a \
webhook; `--on manual` hooks fire only this way). --message TEXT, or `-` to read it from stdin, \
replaces the trigger's prompt for this fire, e.g. with a webhook's payload.

Prints the session id of the chat the fire started (or, for a --resume trigger, continued) on \
stdout; `paddock tail ID` follows the run. A disabled trigger fires too.

When the trigger's previous run is still going, the fire is skipped: nothing runs, stdout stays \
empty, `skipped: <reason>` goes to stderr, and the exit status is still 0, as a skip is a \
normal outcome (scripts can tell by the empty output, or by `skipped` in --json).

--json prints the daemon's reply as one object: {\"sessionId\": ID} or {\"skipped\": REASON}.",
        after_help = "\
Examples:
  paddock trigger fire nightly
  paddock trigger fire ci-failed -p web --message \"CI failed on main: $RUN_URL\"
  id=$(paddock trigger fire ci-failed -p web) && [ -n \"$id\" ] && paddock tail --wait \"$id\"
  curl -s \"$RUN_URL/log\" | paddock trigger fire ci-failed -p web -"
    )]
    Fire(TriggerFireArgs),
}

#[derive(Debug, Args)]
pub struct TriggerLsArgs {
    /// Only this project's triggers [default: every project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print the daemon's reply as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("when").required(true).args(["cron", "every", "on"])),
    group(ArgGroup::new("prompt_source").required(true).args(["prompt", "prompt_file", "stdin"]))
)]
pub struct TriggerAddArgs {
    /// The trigger's name, unique in its project: lower-case letters, digits, `-` and `_`
    /// (e.g. `nightly-backup`)
    pub name: String,
    /// The project [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// A schedule: a five-field cron expression, minute hour day-of-month month day-of-week
    /// (quote it: `--cron '0 2 * * 1-5'`)
    #[arg(long, value_name = "EXPR", help_heading = "When")]
    pub cron: Option<String>,
    /// The cron's time zone, an IANA name (e.g. `Europe/Berlin`) [default: UTC, not your local
    /// time zone]
    // `requires` alone lets `--every 1h --tz X` through: clap excuses a missing required arg
    // that conflicts with one given (cron and every share a group).
    #[arg(
        long,
        value_name = "ZONE",
        requires = "cron",
        conflicts_with_all = ["every", "on"],
        help_heading = "When"
    )]
    pub tz: Option<String>,
    /// A schedule: an interval instead of cron, a whole number and a unit (s, m, h, d): `30s`,
    /// `15m`, `2h`, `1d`
    #[arg(long, value_name = "DURATION", help_heading = "When")]
    pub every: Option<String>,
    /// A hook: the event that fires it
    #[arg(long, value_name = "EVENT", help_heading = "When")]
    pub on: Option<HookEventArg>,
    /// With `--on file_changed`: only changes matching this glob, relative to the project's
    /// directory (repeatable) [default: any file]
    #[arg(
        long = "path",
        value_name = "GLOB",
        requires = "on",
        conflicts_with_all = ["cron", "every"],
        help_heading = "When"
    )]
    pub paths: Vec<String>,
    /// With `--on file_changed`: seconds without changes before it fires, at most a day
    /// [default: 5]
    #[arg(
        long,
        value_name = "SECS",
        requires = "on",
        conflicts_with_all = ["cron", "every"],
        help_heading = "When"
    )]
    pub debounce: Option<u64>,
    /// What each fire tells the chat (`-` reads it from stdin)
    #[arg(long, value_name = "TEXT", help_heading = "Prompt")]
    pub prompt: Option<String>,
    /// Read the prompt from FILE (`-`: stdin)
    #[arg(long, value_name = "FILE", help_heading = "Prompt")]
    pub prompt_file: Option<PathBuf>,
    /// `-`: read the prompt from stdin
    #[arg(value_name = "-", value_parser = only_dash(PROMPT_HINT), help_heading = "Prompt")]
    pub stdin: Option<String>,
    /// Continue the one chat this trigger owns on every fire, instead of a new chat each time
    #[arg(long)]
    pub resume: bool,
    /// A schedule: what to do about fires missed while paddockd was not running [default: skip]
    #[arg(long, value_name = "POLICY", conflicts_with = "on")]
    pub missed: Option<MissedArg>,
    /// The model of the chats it starts (e.g. `sonnet`, `haiku`) [default: the daemon's]
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Save it switched off: it does not fire by itself (`paddock trigger fire` still fires it)
    #[arg(long)]
    pub disabled: bool,
    /// How long a tool call of its runs waits in the approvals inbox before it is denied; 0
    /// waits for you [default: paddockd's approval_timeout_secs]
    #[arg(long, value_name = "SECS")]
    pub approval_timeout: Option<u64>,
    /// Print the daemon's reply (the saved trigger) as one JSON object
    #[arg(long)]
    pub json: bool,
}

/// `--on EVENT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookEventArg {
    /// A turn in one of the project's chats completed
    #[value(name = "turn_completed", alias = "turn-completed")]
    TurnCompleted,
    /// A turn in one of the project's chats failed
    #[value(name = "turn_failed", alias = "turn-failed")]
    TurnFailed,
    /// A chat spawned by another chat finished a turn
    #[value(name = "child_finished", alias = "child-finished")]
    ChildFinished,
    /// A file under the project's directory changed (see --path, --debounce)
    #[value(name = "file_changed", alias = "file-changed")]
    FileChanged,
    /// Only `paddock trigger fire` fires it (a webhook for scripts)
    #[value(name = "manual")]
    Manual,
    /// One of the project's chats was archived (by you or by an agent)
    #[value(name = "archived")]
    Archived,
}

impl From<HookEventArg> for HookEvent {
    fn from(event: HookEventArg) -> Self {
        match event {
            HookEventArg::TurnCompleted => Self::TurnCompleted,
            HookEventArg::TurnFailed => Self::TurnFailed,
            HookEventArg::ChildFinished => Self::ChildFinished,
            HookEventArg::FileChanged => Self::FileChanged,
            HookEventArg::Manual => Self::Manual,
            HookEventArg::Archived => Self::Archived,
        }
    }
}

/// `--missed POLICY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MissedArg {
    /// Drop them
    #[value(name = "skip")]
    Skip,
    /// Fire once when paddockd starts, however many were missed
    #[value(name = "run_once", alias = "run-once")]
    RunOnce,
}

impl From<MissedArg> for MissedPolicy {
    fn from(missed: MissedArg) -> Self {
        match missed {
            MissedArg::Skip => Self::Skip,
            MissedArg::RunOnce => Self::RunOnce,
        }
    }
}

#[derive(Debug, Args)]
pub struct TriggerRefArgs {
    /// The trigger's name
    pub name: String,
    /// Its project [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
}

#[derive(Debug, Args)]
pub struct TriggerFireArgs {
    /// The trigger's name
    pub name: String,
    /// Its project [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Tell the chat this instead of the trigger's prompt, for this fire only (`-`: stdin)
    #[arg(long, value_name = "TEXT", conflicts_with = "stdin")]
    pub message: Option<String>,
    /// `-`: read the message from stdin
    #[arg(value_name = "-", value_parser = only_dash(MESSAGE_HINT))]
    pub stdin: Option<String>,
    /// Print the daemon's reply as one JSON object
    #[arg(long)]
    pub json: bool,
}

/// Where the text of `trigger add` goes when a stray word lands on its `-`.
const PROMPT_HINT: &str =
    "give the prompt as --prompt TEXT, and quote an argument with spaces (e.g. --cron '0 2 * * *')";

/// Where the text of `trigger fire` goes when a stray word lands on its `-`.
const MESSAGE_HINT: &str = "give the message as --message TEXT, quoted";

/// A positional that may only be `-` (read stdin), with a hint where the text goes instead:
/// `paddock trigger add nightly --cron 0 2 * * * ...` (unquoted) is a likely slip.
fn only_dash(hint: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |value: &str| {
        if value == "-" {
            Ok(value.to_owned())
        } else {
            Err(format!("only `-` (read stdin) goes here: {hint}"))
        }
    }
}
