//! The `paddock` command line (DESIGN §6 — a contract users and acceptance tests script).
//!
//! `xtask` builds the man page and shell completions from [`command`], so every help text here
//! is user documentation: say what a command does, its defaults, and show an example.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};

const ABOUT: &str = "Run and watch many Claude Code chats from the terminal";

const LONG_ABOUT: &str = "\
Run and watch many Claude Code chats from the terminal.

paddock talks to paddockd, a local daemon that owns projects and chats and keeps turns running \
when no client is attached. Every command starts paddockd if nothing answers on the socket. \
With no command, paddock opens the TUI: projects and their chats in tree order, updated live.

Where a project is not given (-p), the root workspace is meant.";

const EXAMPLES: &str = "\
Examples:
  paddock                               open the TUI
  paddock send 'summarise the README'   a new chat in the root workspace, reply on stdout
  paddock send -c SESSION 'and now the tests'
  git diff | paddock send -p web -      the message read from stdin
  paddock ls --json | jq '.[].sessionId'
  paddock tail SESSION                  watch a running turn to its end

Exit status: 0 on success; non-zero with a one-line reason on stderr (`paddock: ...`).";

/// The `paddock` client.
#[derive(Debug, Parser)]
#[command(
    name = "paddock",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    propagate_version = true
)]
pub struct Cli {
    /// The daemon's socket [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else
    /// /tmp/paddock-$UID/paddockd.sock]
    #[arg(long, global = true, env = "PADDOCK_SOCKET", value_name = "PATH")]
    pub socket: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Cmd>,
}

/// The `paddock` clap command, for man pages and completions.
pub fn command() -> clap::Command {
    Cli::command()
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Start, stop, restart or inspect paddockd
    #[command(after_help = "\
Examples:
  paddock daemon status
  paddock daemon restart                 after an upgrade, once no turn is running
  paddock daemon start --foreground      run it in this terminal to see why it will not start")]
    Daemon {
        #[command(subcommand)]
        action: DaemonCmd,
    },

    /// Add or list projects (a project is a directory its agents run in)
    #[command(after_help = "\
Examples:
  paddock project add web --path ~/src/web
  paddock project ls --json")]
    Project {
        #[command(subcommand)]
        action: ProjectCmd,
    },

    /// List chats in tree order, children under the chat that started them
    #[command(
        visible_alias = "list",
        long_about = "\
List the chats of one project in tree order: each chat is followed by the chats it spawned, \
indented by depth.

Columns: the session id, the origin (human, scheduled, spawned, hook, adopted), four flags and \
the title. Flags: R running, U unread, S starred, A archived; `-` where not set.

--json prints one array of chat objects: sessionId, projectSlug, title, origin, depth, \
parentSessionId, parentProject, createdAt, updatedAt, model, messageCount, running, unread, \
archived, starred (optional fields are left out when unknown).",
        after_help = "\
Examples:
  paddock ls                              the root workspace's active chats
  paddock ls -p web --all
  paddock ls --json | jq -r '.[] | select(.running) | .sessionId'"
    )]
    Ls(LsArgs),

    /// Send a message: start a new chat, or a turn in an existing one, and stream the reply
    #[command(
        long_about = "\
Send a message: start a new chat (no -c) or a turn in an existing one (-c SESSION), then \
stream the reply to stdout as it arrives. Tool calls are shown as one-line summaries on \
stderr, and the chat's session id goes to stderr as `session: <id>` as soon as it is known.

The message is TEXT (several words are joined with spaces); `-`, or no TEXT with stdin not \
a terminal, reads it from stdin.

Ctrl-C cancels the running turn (the chat stays resumable); a second Ctrl-C stops waiting. \
Exits non-zero when the turn fails.",
        after_help = "\
Examples:
  paddock send 'what does this repo do?'
  paddock send -p web -c 0198c3e1-... 'now add a test'
  paddock send --detach -p web 'run the nightly checks'    prints the session id and returns
  cat notes.md | paddock send -"
    )]
    Send(SendArgs),

    /// Attach to a chat: replay its running turn, then print live frames until it ends
    #[command(
        long_about = "\
Attach to a chat: replay the running turn from its start, then print live frames until the \
turn ends. A turn that ended less than a minute ago is still replayed. When nothing is running, \
wait for the chat's next turn (unless --no-wait).

Output is as for `paddock send`, with the user's message (and who injected it) shown too. \
Exits non-zero when the turn fails.",
        after_help = "\
Examples:
  paddock tail 0198c3e1-...
  paddock tail --json 0198c3e1-... | jq -c 'select(.type == \"chat:tool_call\")'"
    )]
    Tail(TailArgs),

    /// Interrupt a chat's running turn (the chat stays resumable)
    #[command(after_help = "\
Example:
  paddock cancel 0198c3e1-...

Succeeds whether or not a turn was running, and says which.")]
    Cancel(SessionArg),

    /// Print a chat's transcript, with who injected each machine-added message
    #[command(
        long_about = "\
Print a chat's transcript: user and assistant messages, tool calls and their results, \
thinking, compactions, interruptions and API errors. A user message injected by a schedule, \
a hook or another chat has an attribution line above it.

--json prints one object: {\"chat\": <chat object as in `paddock ls --json`>, \"entries\": \
[...]}, each entry tagged by \"kind\" (user, assistant, thinking, tool_use, tool_result, \
compaction, interrupted, api_error).",
        after_help = "\
Examples:
  paddock show 0198c3e1-... | less
  paddock show --json 0198c3e1-... | jq '.entries | length'"
    )]
    Show(ShowArgs),
}

#[derive(Debug, Subcommand)]
pub enum DaemonCmd {
    /// Start paddockd in the background, if it is not running already
    Start {
        /// Run paddockd in this terminal instead (replacing this process), to watch its output
        #[arg(long)]
        foreground: bool,
    },
    /// Stop paddockd (running turns are interrupted; their chats stay resumable)
    Stop,
    /// Show whether paddockd runs, its version, and what it is doing; exits 1 if it is not running
    Status {
        /// Print the status as one JSON object
        #[arg(long)]
        json: bool,
    },
    /// Stop paddockd and start it again (also one that speaks another protocol version)
    Restart {
        /// Run the new paddockd in this terminal instead (replacing this process)
        #[arg(long)]
        foreground: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ProjectCmd {
    /// Add a project
    Add {
        /// The project's name in commands and lists (e.g. `web`)
        slug: String,
        /// The directory its agents run in [default: a new folder in the data directory]
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
    },
    /// List projects: slug and directory; the root workspace shows as `(root)`
    #[command(visible_alias = "list")]
    Ls {
        /// Print one JSON array of {slug, path, createdAt} (the root workspace's slug is "")
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct LsArgs {
    /// The project [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// List only archived chats
    #[arg(long, conflicts_with = "all")]
    pub archived: bool,
    /// List active and archived chats
    #[arg(long)]
    pub all: bool,
    /// Print one JSON array of chat objects
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The project of a new chat [default: the root workspace; with -c, the chat's own project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Continue this chat instead of starting a new one
    #[arg(short = 'c', long = "session", value_name = "SESSION")]
    pub session: Option<String>,
    /// The model for a new chat (e.g. `sonnet`, `opus`) [default: the daemon's]
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Return once the turn is accepted, printing the session id to stdout
    #[arg(long)]
    pub detach: bool,
    /// Print every frame of the turn as one JSON line instead of the reply text (with
    /// --detach: the accepted turn, {projectSlug, sessionId, jobId, queued})
    #[arg(long)]
    pub json: bool,
    /// The message; `-` reads it from stdin (so does no TEXT when stdin is not a terminal)
    #[arg(value_name = "TEXT")]
    pub text: Vec<String>,
}

#[derive(Debug, Args)]
pub struct TailArgs {
    /// The chat's session id
    pub session: String,
    /// Print every frame as one JSON line
    #[arg(long)]
    pub json: bool,
    /// When nothing is running, return at once instead of waiting for the next turn
    #[arg(long)]
    pub no_wait: bool,
}

#[derive(Debug, Args)]
pub struct SessionArg {
    /// The chat's session id
    pub session: String,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The chat's session id
    pub session: String,
    /// Print the transcript as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("paddock").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn no_subcommand_means_the_tui() -> Result<(), clap::Error> {
        let cli = parse(&[])?;
        assert!(cli.command.is_none());
        Ok(())
    }

    #[test]
    fn socket_is_global() -> Result<(), clap::Error> {
        let cli = parse(&["ls", "--socket", "/tmp/s.sock"])?;
        assert_eq!(cli.socket, Some(PathBuf::from("/tmp/s.sock")));
        let cli = parse(&["--socket", "/tmp/t.sock", "daemon", "status"])?;
        assert_eq!(cli.socket, Some(PathBuf::from("/tmp/t.sock")));
        Ok(())
    }

    #[test]
    fn send_takes_every_option() -> Result<(), clap::Error> {
        let cli = parse(&[
            "send", "-p", "web", "-c", "abc", "--model", "opus", "--detach", "--json", "hello",
            "world",
        ])?;
        let Some(Cmd::Send(args)) = cli.command else {
            panic!("not send: {:?}", cli.command);
        };
        assert_eq!(args.project.as_deref(), Some("web"));
        assert_eq!(args.session.as_deref(), Some("abc"));
        assert_eq!(args.model.as_deref(), Some("opus"));
        assert!(args.detach && args.json);
        assert_eq!(args.text, ["hello", "world"]);
        Ok(())
    }

    #[test]
    fn send_accepts_dash_for_stdin_and_an_empty_root_slug() -> Result<(), clap::Error> {
        let cli = parse(&["send", "-p", "", "-"])?;
        let Some(Cmd::Send(args)) = cli.command else {
            panic!("not send: {:?}", cli.command);
        };
        // The root workspace is a real key: `-p ''` is Some(""), not absent.
        assert_eq!(args.project.as_deref(), Some(""));
        assert_eq!(args.text, ["-"]);
        Ok(())
    }

    #[test]
    fn ls_scopes_conflict() -> Result<(), clap::Error> {
        assert!(parse(&["ls", "--archived", "--all"]).is_err());
        let cli = parse(&["ls", "-p", "web", "--archived", "--json"])?;
        let Some(Cmd::Ls(args)) = cli.command else {
            panic!("not ls: {:?}", cli.command);
        };
        assert_eq!(args.project.as_deref(), Some("web"));
        assert!(args.archived && args.json && !args.all);
        Ok(())
    }

    #[test]
    fn daemon_actions() -> Result<(), clap::Error> {
        let cli = parse(&["daemon", "start", "--foreground"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Daemon {
                action: DaemonCmd::Start { foreground: true }
            })
        ));
        let cli = parse(&["daemon", "restart"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Daemon {
                action: DaemonCmd::Restart { foreground: false }
            })
        ));
        assert!(parse(&["daemon", "stop", "--foreground"]).is_err());
        assert!(parse(&["daemon"]).is_err());
        Ok(())
    }

    #[test]
    fn project_add_and_ls() -> Result<(), clap::Error> {
        let cli = parse(&["project", "add", "web", "--path", "src/web"])?;
        let Some(Cmd::Project {
            action: ProjectCmd::Add { slug, path },
        }) = cli.command
        else {
            panic!("not project add: {:?}", cli.command);
        };
        assert_eq!(slug, "web");
        assert_eq!(path, Some(PathBuf::from("src/web")));
        assert!(parse(&["project", "add"]).is_err());
        let cli = parse(&["project", "ls", "--json"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Project {
                action: ProjectCmd::Ls { json: true }
            })
        ));
        Ok(())
    }

    #[test]
    fn session_commands_need_a_session() -> Result<(), clap::Error> {
        assert!(parse(&["tail"]).is_err());
        assert!(parse(&["cancel"]).is_err());
        assert!(parse(&["show"]).is_err());
        let cli = parse(&["tail", "s1", "--json", "--no-wait"])?;
        let Some(Cmd::Tail(args)) = cli.command else {
            panic!("not tail: {:?}", cli.command);
        };
        assert_eq!(args.session, "s1");
        assert!(args.json && args.no_wait);
        let cli = parse(&["show", "s2", "--json"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Show(ShowArgs { json: true, .. }))
        ));
        let cli = parse(&["cancel", "s3"])?;
        assert!(
            matches!(cli.command, Some(Cmd::Cancel(SessionArg { session })) if session == "s3")
        );
        Ok(())
    }

    #[test]
    fn later_commands_are_not_pretended() {
        for later in [
            "archive", "star", "history", "trigger", "import", "status", "doctor",
        ] {
            assert!(parse(&[later]).is_err(), "{later} should not parse yet");
        }
    }
}
