//! The `paddock` command line (DESIGN §6 — a contract users and acceptance tests script).
//!
//! `xtask` builds the man page and shell completions from [`command`], so every help text here
//! is user documentation: say what a command does, its defaults, and show an example.

use std::path::PathBuf;

use clap::{ArgGroup, Args, CommandFactory, Parser, Subcommand, ValueEnum};
use paddock_proto::{HookEvent, MissedPolicy};

const ABOUT: &str = "Run and watch many Claude Code chats from the terminal";

const LONG_ABOUT: &str = "\
Run and watch many Claude Code chats from the terminal.

paddock talks to paddockd, a local daemon that owns projects and chats and keeps turns running \
when no client is attached. Every command starts paddockd if nothing answers on the socket. \
With no command, paddock opens the TUI: projects and their chats in tree order, updated live.

Where a project is not given (-p), the root workspace is meant.

A SESSION argument is a session id or a unique prefix of one, at least 4 characters, in any \
project (`paddock ls -A` lists every project's chats). Every command resolves it the same way; \
one that is too short, names several chats or names none fails with exit status 1.

With --remote HOST (or PADDOCK_REMOTE), paddock runs here and reaches the paddockd on HOST \
through ssh: it runs `ssh -T -o BatchMode=yes HOST paddock proxy` and speaks to the daemon over \
ssh's stdin and stdout. No port is opened; ssh's own keys and config decide who may connect. \
Several clients, local and remote, can watch the same chat at once. --socket then names the \
socket on HOST, and file paths given to commands are HOST's (absolute, or with -p relative to \
the project). Set PADDOCK_SSH to use another ssh program.";

const EXAMPLES: &str = "\
Examples:
  paddock                               open the TUI
  paddock send 'summarise the README'   a new chat in the root workspace, reply on stdout
  paddock send -c SESSION 'and now the tests'
  git diff | paddock send -p web -      the message read from stdin
  paddock ls --json | jq '.[].sessionId'
  paddock tail SESSION                  watch a running turn to its end
  paddock history                       what ran, and what ran while you were away
  paddock search cookie refr            every chat with a word starting `cookie` and one `refr`
  paddock trigger ls                    schedules and hooks, with their next fire
  paddock archive --subtree SESSION     a chat and every chat below it out of `paddock ls`
  paddock --remote devbox               the TUI here, the chats on devbox (through ssh)
  paddock --remote me@devbox send -p web 'run the tests'

Exit status: 0 on success; non-zero with a one-line reason on stderr (`paddock: ...`).";

/// What every flag-changing command (archive, star, read, detach...) shares, said in each help.
macro_rules! update_rules {
    () => {
        "

Takes one or more session ids, at most 500 at once (--subtree included), and changes all of \
them or none: one unknown id fails the command. Prints how many chats changed; a chat already in \
that state does not count."
    };
}

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
    /// The daemon's socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock,
    /// else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST's]
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    /// Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this
    /// machine's; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`
    #[arg(long, global = true, env = "PADDOCK_REMOTE", value_name = "HOST")]
    pub remote: Option<String>,

    /// With --remote: the paddock program on HOST; `~/` is HOST's home [default: paddock]
    #[arg(
        long,
        global = true,
        env = "PADDOCK_REMOTE_PADDOCK",
        value_name = "PATH"
    )]
    pub remote_paddock: Option<PathBuf>,

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
  paddock daemon start --foreground      run it in this terminal to see why it will not start
  paddock --remote devbox daemon status  the paddockd on devbox (runs `paddock daemon status` there)

With --remote HOST these run on HOST through ssh (`ssh HOST paddock daemon ...`); --foreground \
is refused there (use `ssh -t HOST paddock daemon start --foreground`).")]
    Daemon {
        #[command(subcommand)]
        action: DaemonCmd,
    },

    /// Add, list, show, change, remove or promote projects (a project is a directory its
    /// agents run in)
    #[command(after_help = "\
Examples:
  paddock project add web --path ~/src/web
  paddock project add api --repo https://github.com/ana/api.git
  paddock project ls --json
  paddock project show web
  paddock project set web --summary 'The web app' --status active
  paddock project rm web")]
    Project {
        #[command(subcommand)]
        action: ProjectCmd,
    },

    /// List chats in tree order, children under the chat that started them
    #[command(
        visible_alias = "list",
        long_about = "\
List the chats of one project in tree order: each chat is followed by the chats it spawned, \
indented by depth. With -A (--all-projects), every project's, each under its name (with --json, \
one array; projectSlug says whose). --archived and --all choose archived or all chats, in \
either case.

Columns: the session id; the origin (human, scheduled, spawned, hook, adopted; a spawned chat \
more than one hop from its root shows the hops, e.g. `spawned·2`); four flags; CTX, how full the \
chat's context window is (e.g. `42%`, blank when unknown); and the title. Flags: R running, \
U unread, S starred, A archived; `-` where not set.

A chat is drawn under its parent: the chat that forked or spawned it, when that chat is in the \
listing. `paddock detach` draws a chat as a root instead.

--json prints one array of chat objects: sessionId, projectSlug, title, origin, depth, \
parentSessionId, parentProject (the recorded parent), createdAt, updatedAt, model, \
messageCount, running, unread, archived, starred, detached (drawn as a root by `paddock \
detach`), trigger (the schedule or hook that started it), treeParent (the row it is drawn \
under), level (its nesting level in the listing, 0 for a root), children (the session ids \
drawn directly under it), usage ({contextTokens, contextLimit, inputTokens, outputTokens, \
cacheReadTokens, cacheCreationTokens, costUsd}). Optional fields are left out when unknown \
or not set.",
        after_help = "\
Examples:
  paddock ls                              the root workspace's active chats
  paddock ls -p web --all
  paddock ls -A                           every project's chats: where a SESSION prefix is found
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
Exits non-zero when the turn fails.

When the turn ends, the chat is marked read: you watched the reply. With --detach or --json it \
is not (nobody watched it here).",
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
turn ends. A turn that ended less than a minute ago (the daemon's hub_linger_secs) is still \
replayed, to its end. When nothing is running and nothing is replayable, say so in one line on \
stderr and exit 0; with --wait, wait for the chat's next turn instead and follow it.

Output is as for `paddock send`, with the user's message (and who injected it) shown too. \
Exits non-zero when the turn fails, or when there is no such chat.",
        after_help = "\
Examples:
  paddock tail 0198c3e1-...
  paddock tail --wait 0198c3e1-...      # the next turn, if none is running
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
thinking, compactions, interruptions and API errors. A user message injected by a machine \
has an attribution line above it:

  ⏰ scheduled by NAME          a schedule fired it
  ↩ sent by CHAT               another chat sent it (its title, else its session id)
  ⚡ triggered by hook NAME     an event hook fired it
  ⚠ continued after a background task was terminated

Your own messages carry no line. Printing the transcript marks the chat read (as `paddock read` \
does); --json does not.

--json prints one object: {\"chat\": <chat object as in `paddock ls --json`>, \"entries\": \
[...]}, each entry tagged by \"kind\" (user, assistant, thinking, tool_use, tool_result, \
compaction, interrupted, api_error).",
        after_help = "\
Examples:
  paddock show 0198c3e1-... | less
  paddock show --json 0198c3e1-... | jq '.entries | length'"
    )]
    Show(ShowArgs),

    /// What is missing to run chats (claude, login, data folder, daemon), and how to fix it
    #[command(
        long_about = "\
Check what paddock needs as the daemon sees it, without changing anything (it does not start \
the daemon): the claude binary the running paddockd starts (its claude_bin / PADDOCK_CLAUDE_BIN, \
else claude on the daemon's PATH), its version and whether it is supported, a login or API key \
in the daemon's environment (names only, never values), a writable data folder, the socket and \
the log, and the optional git and tmux. When no paddockd runs, it says so and reports what a \
daemon started now would see (this shell's environment and configuration, a value the daemon \
would refuse included). Each problem comes with how to fix it. Exits 1 when something required \
is missing. With --remote HOST the checks run on HOST (`ssh HOST paddock doctor`), where the \
daemon and the agents are.

With --json, stdout is one JSON object (the exit status is the same): {\"ok\": BOOL, \"checks\": \
[{\"name\": STRING, \"ok\": BOOL, \"required\": BOOL, \"detail\": STRING, \"fix\": STRING or \
null}], \"info\": OBJECT or null}. `ok` is false when a required check failed; the checks are \
named daemon, claude, supported, login, data, socket, log, git and tmux (config or paddockd \
instead of claude to log when no daemon runs and none could start); `fix` is null for a \
passing check; `info` is the daemon's own report (docs/PROTOCOL.md, daemon:info). Fields may \
be added, never renamed or removed.",
        after_help = "\
Examples:
  paddock doctor
  paddock doctor --json | jq -r '.checks[] | select(.ok | not) | .fix'"
    )]
    Doctor(DoctorArgs),

    /// One line for a status bar: running turns, tool calls waiting for you, unread chats
    #[command(
        long_about = "\
Print one line for a status bar: how many turns are running, how many tool calls wait for \
your answer in the approvals inbox (the TUI's I), and how many chats are unread. Exits 0 with an \
empty line when nothing is going on, so a status bar stays quiet.

--tmux prints the same with tmux colour codes, for `status-right`. --json prints one object: \
{\"running\", \"waiting\", \"unread\", \"approvals\": [...]} with each pending approval \
(id, chat, tool, preview).",
        after_help = "\
Examples:
  paddock status
  set -g status-right '#(paddock status --tmux)'     in ~/.tmux.conf (status-interval 5)
  paddock status --json | jq '.approvals[].tool'"
    )]
    Status(StatusArgs),

    /// List the tool calls waiting for a person in every project, or answer them
    #[command(
        long_about = "\
List the tool calls waiting for a person, in every project: a call no rule of allowed_tools \
allows waits here (and its turn with it, `paddock send` too) until it is answered. Columns: \
ID (a unique prefix is enough, at least 4 characters; `apr_` may be left out), the project, \
the chat (its short session id and title), the tool, a one-line preview of the call, the \
chat's origin and how long it has waited.

allow runs the call once, deny refuses it (--message tells the agent why), always runs it and \
adds a rule to the project's allowed_tools, scoped like Claude Code's own permission rules, \
and says which before it is written (`always: adds Bash(mkdir:*) to project demo`):

  Bash(CMD:*)      a command starting with CMD's words: the first word, or the first two when \
the first is one whose second word says what it does (git, npm, pnpm, yarn, bun, npx, cargo, go, \
docker, kubectl, gh, make, pip, uv, ...: `Bash(git commit:*)`). Never all of Bash. A command \
chaining others (`;`, `&&`, `|`, `$(...)`, a redirection...) matches no Bash rule and is asked.
  Edit(DIR/**)     Edit, Write, MultiEdit, NotebookEdit, Read: the file's directory and \
everything below it, relative to the project's directory (`Edit(src/**)`; `Edit(**)` for a file \
at its top), or absolute outside it (`Write(/tmp/out/**)`). Glob and Grep: the directory searched.
  WebFetch(domain:HOST)   fetches from HOST.
  TOOL             any other tool (an MCP tool...), which has no input to scope.

`paddock project show` lists a project's rules; `paddock project set SLUG --disallow RULE` \
removes one.

--json prints one array of approvals: {id, projectSlug, sessionId, jobId, title, origin, depth, \
tool, input, preview, askedAt, alwaysRule}. Answering prints one line per approval.",
        after_help = "\
Examples:
  paddock approvals
  paddock approvals allow 3f9c                  a unique prefix of the id
  paddock approvals deny 3f9c --message 'use the staging database'
  paddock approvals always 3f9c 81ab            several at once
  paddock approvals --json | jq -r '.[] | select(.tool == \"Bash\") | .id' | xargs paddock approvals deny"
    )]
    Approvals(ApprovalsArgs),

    /// Tell this terminal when a chat needs you: desktop notifications and the bell
    #[command(
        long_about = "\
Stay connected to paddockd and announce every chat that needs you — an unattended run \
(scheduled, hook, spawned) that finished, a run that failed, a tool call waiting for approval — \
with a desktop notification through the terminal (OSC 9, or OSC 777) and the bell, plus one line \
on stdout. Chats open in a client are not announced (someone is watching them), and each event \
is announced once. The TUI does the same by itself; this is for when it is not open: run it in a \
tmux window or a spare terminal, locally or with --remote.

Inside tmux the sequence goes through tmux's passthrough, which needs `set -g allow-passthrough \
on`; the bell needs nothing. PADDOCK_NOTIFY picks the sequence: osc9 (default: iTerm2, WezTerm, \
Windows Terminal, ghostty, foot), osc777 (rxvt-unicode, Konsole), bell, or off (the lines only).

Ends with Ctrl-C; exits 1 if the connection to paddockd is lost.",
        after_help = "\
Examples:
  paddock notify                        in a spare tmux window
  PADDOCK_NOTIFY=osc777 paddock notify
  paddock --remote devbox notify        a laptop told about the devbox's chats"
    )]
    Notify(NotifyArgs),

    /// Tokens, estimated cost and context use, per chat, project and subtree
    #[command(
        long_about = "\
Sum the tokens (input, output, cache reads and writes) and the estimated cost of chats, from \
paddockd's index of the transcripts (no transcript is re-read): the total, one line per project, \
then the costliest chats with their context-window use after their latest message. The cost is \
estimated from the token counts and the model's list price.

Without -p every project counts; --subtree SESSION sums a chat and every chat under it in the \
tree. Archived chats count with --archived (only them) or --all (both).

--json prints {total, projects: {slug: totals}, chats: [{sessionId, projectSlug, title, \
archived, tokens, costUsd, contextPercent}]}, where totals are {chats, measured, inputTokens, \
outputTokens, cacheReadTokens, cacheCreationTokens, costUsd}.",
        after_help = "\
Examples:
  paddock usage
  paddock usage -p web --all
  paddock usage --subtree SESSION       a manager chat and everything it spawned
  paddock usage --json | jq .total.costUsd"
    )]
    Usage(UsageArgs),

    /// Fetch a kept attachment: a file attached to a message, or one an agent showed
    #[command(
        long_about = "\
Write the bytes of a kept attachment to stdout (or to --output FILE): a file attached to a \
message (`paddock send --attach`), or a snapshot of a file an agent showed with send_file. The \
id is the first field of the message's <paddock-attachments> line, or the `snapshot` in the \
send_file notice. Snapshots never change, even when the agent's file does.",
        after_help = "\
Examples:
  paddock attachment 3f2a9c1e-7b4d-4e8a-9c0f-1d2e3f4a5b6c.png -o shot.png
  paddock attachment ID | less"
    )]
    Attachment(AttachmentArgs),

    /// Archive chats: hide them from `paddock ls` (`ls --archived` lists them)
    #[command(
        long_about = "\
Archive chats: they leave `paddock ls` and the TUI's list, and `paddock ls --archived` lists \
them. Nothing is deleted; `paddock unarchive` brings them back.",
        after_help = concat!(
            "\
Examples:
  paddock archive 0198c3e1-... 0198c3e2-...
  paddock archive --subtree 0198c3e1-...    the chat and every chat below it",
            update_rules!()
        )
    )]
    Archive(UpdateArgs),

    /// Bring archived chats back into `paddock ls`
    #[command(after_help = concat!("\
Examples:
  paddock unarchive 0198c3e1-...
  paddock ls --archived --json | jq -r '.[].sessionId' | xargs paddock unarchive", update_rules!()))]
    Unarchive(UpdateArgs),

    /// Star chats: starred chats are listed first
    #[command(after_help = concat!("\
Examples:
  paddock star 0198c3e1-...
  paddock unstar 0198c3e1-...", update_rules!()))]
    Star(UpdateArgs),

    /// Remove the star from chats
    #[command(after_help = concat!("\
Example:
  paddock unstar 0198c3e1-... 0198c3e2-...", update_rules!()))]
    Unstar(UpdateArgs),

    /// Mark chats read (seen now), clearing their U flag
    #[command(
        long_about = "\
Mark chats read: seen by you now. This clears the U flag of `paddock ls`, also one set by \
`paddock unread`. Read state is yours alone; other users of the daemon keep their own. \
`paddock show` and `paddock send` mark the chat they print read by themselves.",
        after_help = concat!("\
Examples:
  paddock read 0198c3e1-...
  paddock ls --json | jq -r '.[] | select(.unread) | .sessionId' | xargs paddock read", update_rules!())
    )]
    Read(UpdateArgs),

    /// Flag chats unread again, as a reminder to come back to them
    #[command(after_help = concat!("\
Example:
  paddock unread 0198c3e1-...", update_rules!()))]
    Unread(UpdateArgs),

    /// Draw chats as roots of the tree instead of under their parent (nothing is destroyed)
    #[command(
        long_about = "\
Detach chats from their parent: `paddock ls` and the TUI draw each one as a root instead of \
under the chat that forked or spawned it (or that paddockd inferred as its parent). Nothing \
is destroyed: the recorded parent is kept, and `paddock attach` draws the chat under it again. \
The chats it spawned stay under it.",
        after_help = concat!("\
Examples:
  paddock detach 0198c3e1-...
  paddock attach 0198c3e1-...            undo it", update_rules!())
    )]
    Detach(UpdateArgs),

    /// Undo `paddock detach`: draw chats under their parent again
    #[command(after_help = concat!("\
Example:
  paddock attach 0198c3e1-...", update_rules!()))]
    Attach(UpdateArgs),

    /// Delete chats: their transcripts and every flag they had
    #[command(
        long_about = "\
Delete chats for good: the transcript paddockd holds is removed, and so is every flag the chat \
had (starred, archived, read). An imported chat's own file in your ~/.claude is left alone; \
only paddock's link to it goes. A chat running a turn cannot be deleted (`paddock cancel` it \
first), and one unknown or running chat fails the whole command, deleting nothing.

Asks for confirmation, listing the chats, unless --yes is given. With stdin not a terminal \
(a script), --yes is required. To keep a chat out of sight without losing it, use `paddock \
archive`.",
        after_help = "\
Examples:
  paddock delete 0198c3e1-...
  paddock delete --subtree --yes 0198c3e1-...    the chat and every chat below it, no question"
    )]
    Delete(DeleteArgs),

    /// Copy a chat into a new one, drawn under it; prints the new session id
    #[command(
        long_about = "\
Fork a chat: copy its transcript into a new chat in the same project, to try another approach \
from the same point. The fork records the chat as its parent, so it is drawn under it, one \
level deeper. Prints the new chat's session id on stdout.",
        after_help = "\
Examples:
  paddock fork 0198c3e1-... --name 'Login test: try the retry approach'
  paddock send -c \"$(paddock fork 0198c3e1-...)\" 'now try it without the mock'"
    )]
    Fork(ForkArgs),

    /// Recent runs by origin, newest first, and what ran "while you were away"
    #[command(
        long_about = "\
List recent runs, newest first: every turn paddockd ran and every imported chat, in every \
project (or one, with -p). Columns: when it started (local time), who started it (you, \
scheduled, spawned — with its depth when more than one hop from its root, e.g. `spawned·2` — \
hook, imported), its status (running, completed, failed, cancelled, interrupted: paddockd \
stopped while it ran), how long it ran, the project and the chat's title.

Unattended runs (scheduled, spawned, hook) that finished since you last looked are marked \
`*`, under a line \"while you were away: N unattended runs finished since TIME\". Listing them \
counts as looking: the next `paddock history` starts afresh, unless --keep-unseen. Being seen \
is one mark for every project, so with -p, or when --limit leaves new runs out, nothing is \
marked seen.

--json prints one object: {\"runs\": [{jobId, projectSlug, sessionId, title, origin, depth, \
trigger, status, startedAt, finishedAt, costUsd, prompt, attribution, isNew}], \"lastSeen\": \
TIME, \"newUnattended\": N}, optional fields left out when unknown. A run whose message another \
chat sent is shown as \"sent by\" that chat (attribution {kind: \"sent\", fromSessionId, \
fromTitle}). --json never marks the runs seen.",
        after_help = "\
Examples:
  paddock history                           what ran, and what ran while you were away
  paddock history --unattended -p web
  paddock history --json | jq -r '.runs[] | select(.status == \"failed\") | .sessionId'"
    )]
    History(HistoryArgs),

    /// Full-text search across every chat: titles, messages, tool calls and their results
    #[command(
        long_about = "\
Search every chat of every project (or one, with -p) for words: in titles, your messages, the \
assistant's replies, tool calls (the tool and its input) and tool results. Each word must \
appear, case aside, at the start of a word (`refr` finds refresh, Refresh and refract); a word \
with punctuation inside (`auth.ts`, `cookie_jar`) matches its parts in a row. A \"quoted \
phrase\" must appear as it is, case and punctuation between its words aside. A chat matches when it has every word and \
phrase, in any of its messages. One-letter words are ignored.

One block per chat, best first (chats whose title matches, then the most recently active): the \
short session id, the project, when it was last active and its title; then its first five \
matches, indented, each with where it is (title, user, assistant, tool call, tool result) and \
one line around it, the matched words in bold on a terminal, else (output to a pipe or a file, \
or NO_COLOR set) in [brackets]. Chats beyond --limit, and the daemon still building its index \
(for a few seconds after it starts), are noted on stderr.

Archived chats are left out unless --archived. QUERY is the words, as one argument or many \
(quote a phrase for the shell too: '\"refresh race\"').

--json prints the daemon's reply as one object: {query, hits: [{projectSlug, sessionId, title, \
updatedAt, archived, matches: [{field, entry, uuid, snippet, highlights: [[start, end]]}], \
more}], total, indexing: {done, total}}, where entry is the index in `paddock show --json`'s \
entries and highlights are character offsets into snippet.",
        after_help = "\
Examples:
  paddock search cookie refresh race
  paddock search '\"refresh race\"' -p web
  paddock search postgres --archived --limit 200
  paddock search flaky test --json | jq -r '.hits[].sessionId'"
    )]
    Search(SearchArgs),

    /// Schedules (cron, intervals) and hooks that start chats by themselves
    #[command(
        long_about = "\
Schedules and hooks: triggers that start chats without you. A schedule fires on a five-field \
cron expression in a time zone, or at an interval; a hook fires when something happens in its \
project (a turn completes or fails, a spawned chat finishes, a file changes) or when `paddock \
trigger fire` fires it. Each fire starts a new chat of origin scheduled or hook, or, with \
--resume, continues the one chat that trigger owns, across fires and daemon restarts. A fire \
while the trigger's previous run is still going is skipped (and recorded: `paddock history`).

Triggers are kept per project, in its project.toml under [triggers.NAME]; NAME is unique within \
its project.",
        after_help = "\
Examples:
  paddock trigger ls                                      every project's triggers, next fires
  paddock trigger add nightly --cron '0 2 * * *' --tz Europe/Berlin --resume \\
      --prompt \"Check last night's backup and report anything odd.\"
  paddock trigger add docs -p web --on file_changed --path 'docs/**' --prompt-file docs.md
  paddock trigger fire ci-failed -p web --message \"CI failed on main: $URL\"
  paddock trigger rm nightly"
    )]
    Trigger {
        #[command(subcommand)]
        action: TriggerCmd,
    },

    /// Adopt the terminal `claude` history of a directory as chats
    #[command(
        long_about = "\
Import the chats you had with `claude` in a terminal: the sessions recorded in your own \
~/.claude for DIR (default: the project's directory) become chats of the project, of origin \
`adopted` (shown as imported). Nothing is copied and your files are not altered: paddockd links \
to them, and makes its own copy only when you continue an imported chat here.

Sessions that are already imported, empty, only slash commands, sub-agent sidechains, \
unreadable, or of another directory are skipped; the summary counts them by reason (--json \
lists them). Importing again adopts only what is new.

--json prints one object: {projectSlug, path, adopted: [session ids], skipped: [{sessionId, \
reason}], dryRun}.",
        after_help = "\
Examples:
  paddock import -p web                      the sessions of web's directory
  paddock import -p web --path ~/src/web-old --dry-run"
    )]
    Import(ImportArgs),

    /// Which chat produced a file, from what, and whether it still is what that chat wrote
    #[command(
        long_about = "\
Show a file's provenance: which chats' tool calls wrote it and read it, and what it came from. \
paddockd records a step for every tool call of every turn: Edit, Write and NotebookEdit name the \
files they write (observed, with a hash of the file right after the call), Read, Grep and Glob \
what they read; Bash and other tools get a scan of the project's directory before and after the \
call, and the files that changed are inferred writes. The agent cannot author these records.

The status comes first: current (the bytes on disk are what the latest recorded write left), \
stale (they differ, or the file is gone) or unverified (no recorded write, no hash, or \
unreadable). Then the producers and readers, newest first, with the chat's title and short ids \
of the chat, the turn and the step; then the lineage: the step that last wrote the file, the \
files that step and its chat had read before, the steps that produced those, and so on, as an \
indented tree (at most 60 files and 12 hops). A file no chat wrote is marked as yours or \
pre-existing.

FILE is relative to the current directory, or, with -p, to the project's directory. Without -p \
the project is the one whose directory holds FILE.

--json prints the daemon's reply as one object: {projectSlug, path, status, statusReason, \
currentHash, producers: [{sessionId, jobId, stepId, title, tool, at, edge, change, hash}], \
readers: [...], lineage: {nodes: [{path, hops, producer, inputs, missingOrigin}], truncated}, \
notes}.",
        after_help = "\
Examples:
  paddock provenance src/auth/cookie.ts
  paddock provenance -p web docs/API.md --json | jq -r '.producers[0].sessionId'"
    )]
    Provenance(ProvenanceArgs),

    /// Which chat and turn last wrote each line of a file (blame by chat)
    #[command(
        long_about = "\
Show a file line by line with who last wrote each region: a chat's tool call (the chat's short \
id, its title and the tool), a commit (its short hash and author), or (not recorded) for changes \
nothing recorded: your own edits, or a write paddockd did not see. Who wrote a region is named \
on its first line only.

paddockd keeps the text each recorded write left (files up to 1 MiB), and walks the file's \
versions oldest first: the commits of HEAD's history that changed it (the last 200) and the \
chats' recorded writes, in time order. Each version's changed lines are its own, the lines it \
kept stay with who wrote them; lines that differ from the last version are not recorded. A \
write whose text was not kept (too large, or from before versions were kept) is skipped, and \
notes at the end say so. Only text files up to 4 MiB can be blamed.

FILE is relative to the current directory, or, with -p, to the project's directory. Without -p \
the project is the one whose directory holds FILE.

--json prints the daemon's reply as one object: {projectSlug, path, lines, regions: [{start, \
end, by}], notes}, where by is {kind: \"step\", sessionId, jobId, stepId, title, tool, at, ...}, \
{kind: \"commit\", sha, summary, author, at} or {kind: \"unknown\"}.",
        after_help = "\
Examples:
  paddock blame src/auth/cookie.ts
  paddock blame -p web docs/API.md --json | jq '.regions[] | select(.by.kind == \"step\")'"
    )]
    Blame(BlameArgs),

    /// The files a chat read and wrote, turn by turn, and whether each is still what it wrote
    #[command(
        long_about = "\
List the files a chat's tool calls touched, one block per turn (oldest first), as recorded by \
file provenance: each path once per turn and role, with the change (wrote, created, modified, \
deleted, read) and the tool of the turn's last call on it. A write says whether the file still \
is what that turn left: current (the bytes on disk match the hash recorded then), stale (they \
differ: changed since, or gone) or unverified (no hash, or only one taken when a subagent's work \
was harvested). Inferred writes come from a scan around Bash and other opaque tools; subagent \
writes (the Agent tool) are harvested from the subagent's transcript and name it.

--json prints the daemon's reply as one object: {projectSlug, sessionId, turns: [{jobId, \
startedAt, files: [{path, role, edge, change, tool, status, specialist}]}], notes}.",
        after_help = "\
Examples:
  paddock files SESSION                 every turn of the chat
  paddock files SESSION --turn JOB      one turn
  paddock files SESSION --json | jq -r '.turns[].files[] | select(.status == \"stale\") | .path'"
    )]
    Files(FilesArgs),

    /// A project's files, one directory at a time (any file, touched by a chat or not)
    #[command(
        name = "ls-files",
        long_about = "\
List one directory of a project's directory, as paddockd sees it: directories first, then files, \
each with its size and when it was last modified. Names starting with a dot (.git among them) \
are left out unless --all. PATH is relative to the project's directory (default: its top); \
`..`, absolute paths and symlinks leading out of the project are refused, and a symlink that \
leads out is listed as such but never followed. At most --limit entries (default and cap 2000); \
a line at the end says when more were left out.

Pair it with `paddock provenance -p SLUG FILE` and `paddock blame -p SLUG FILE` to see who wrote \
a file, or browse the same listing in the TUI (B).

--json prints the daemon's reply as one object: {projectSlug, path, entries: [{name, dir, \
symlink, outside, size, mtime}], truncated}.",
        after_help = "\
Examples:
  paddock ls-files -p web                the top of project web
  paddock ls-files -p web src/auth --all
  paddock ls-files -p web --json | jq -r '.entries[] | select(.dir | not) | .name'"
    )]
    LsFiles(LsFilesArgs),

    /// Git status, diff, commit and push of a project, or of the files a chat or a turn wrote
    #[command(
        long_about = "\
Git status, diff, commit and push of a project's directory. paddockd runs git there, showing \
only the changes inside that directory.

Each takes a scope: without one, every change of the project; with --chat SESSION, only the \
files that chat's tool calls wrote (as recorded by file provenance: `paddock provenance`); with \
--chat SESSION --subtree, those of the chat and every chat below it; with --turn SESSION:JOB, \
those of one turn. A file changed by hand is in the project's changes but in no chat's. A \
scoped status says how many other changed files it left out.

With --chat or --turn and no -p, the project is the chat's own. `paddock git push` pushes the \
project's branch to its upstream (--data-root: the data directory's own repository).",
        after_help = "\
Examples:
  paddock git status -p web
  paddock git status --chat SESSION --subtree     what a chat and its children changed
  paddock git diff --chat SESSION | less -R
  paddock git diff --turn SESSION:JOB src/auth/cookie.ts
  paddock git commit --chat SESSION -m 'Fix the cookie refresh race' --push
  paddock git push -p web"
    )]
    Git {
        #[command(subcommand)]
        action: GitCmd,
    },

    /// Bridge stdin and stdout to paddockd's socket: what `paddock --remote HOST` runs on HOST
    #[command(
        long_about = "\
Bridge stdin and stdout to paddockd's socket, byte for byte, until either side closes. This is \
what `paddock --remote HOST` runs on HOST through ssh (`ssh -T HOST paddock proxy`): the client \
on your machine speaks the daemon's JSON lines over ssh, and this copies them to the socket and \
back. You do not need to run it yourself, except to check that `--remote` can work.

Like every command, it starts paddockd when nothing answers on the socket (--socket, or \
PADDOCK_SOCKET). Nothing but the daemon's lines is written to stdout. Exits 0 when stdin \
closes; non-zero, with one line on stderr, when the daemon cannot be reached or closes the \
connection first.",
        after_help = "\
Examples:
  ssh devbox paddock proxy < /dev/null     check that --remote devbox will work: prints nothing, exits 0
  paddock --remote devbox ls               what runs it for you"
    )]
    Proxy {
        /// Bridge only to a daemon that runs already; never start one (what a TUI whose
        /// daemon was stopped on purpose uses to look for a new one)
        #[arg(long, hide = true)]
        no_start: bool,
    },
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
    /// Add a project: a folder in the data directory, a directory of yours (--path), or a clone
    /// of a repository (--repo)
    #[command(
        long_about = "\
Add a project. Without --path its files live in a new folder in paddock's data directory (a \
notebook). --path DIR makes DIR (created if missing; its parent must exist) the directory its \
agents run in. A directory belongs to one project: a --path another project runs in is refused, \
naming that project.

--repo URL makes it repo-backed: the repository (an https://, ssh://, git:// or file:// URL, \
git@host:owner/repo, or a path on the daemon's machine) is cloned, by the daemon, into --path \
(which must then be new or empty) or into a folder named after the repository inside the \
project's data folder, and its agents run in the clone. git never prompts (a URL needing \
credentials you have not set up fails with git's message), and a clone taking more than 10 \
minutes is stopped. A clone that fails leaves nothing behind.

--name, --summary, --area and --status describe the project (`paddock project show`, the \
TUI); `paddock project set` changes them later.",
        after_help = "\
Examples:
  paddock project add notes
  paddock project add web --path ~/src/web
  paddock project add api --repo git@github.com:ana/api.git --summary 'The public API'"
    )]
    Add {
        /// The project's name in commands and lists (e.g. `web`): lower-case letters, digits,
        /// `-`, `_` and `.`
        slug: String,
        /// The directory its agents run in [default: a new folder in the data directory]
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
        /// A repository to clone; the project's agents then run in the clone
        #[arg(long, value_name = "URL")]
        repo: Option<String>,
        /// A display name
        #[arg(long, value_name = "TEXT")]
        name: Option<String>,
        /// One line saying what the project is
        #[arg(long, value_name = "TEXT")]
        summary: Option<String>,
        /// The area (group) the project is filed under
        #[arg(long, value_name = "TEXT")]
        area: Option<String>,
        /// Its status
        #[arg(long, value_enum)]
        status: Option<ProjectStatusArg>,
    },
    /// List projects: slug and directory; the root workspace shows as `(root)`
    #[command(visible_alias = "list")]
    Ls {
        /// Print one JSON array of {slug, path, createdAt, and the settings that are set: name,
        /// summary, area, status, repo, model, driveMode, maxSpawnDepth} (the root workspace's
        /// slug is "")
        #[arg(long)]
        json: bool,
    },
    /// Show a project: its settings, chat counts, and the OVERVIEW.md and CHANGELOG.md the
    /// sweeper keeps
    #[command(
        long_about = "\
Show a project: its directory, repository and settings; how many chats it has (not archived), \
how many run now and how many you have not read; then OVERVIEW.md and CHANGELOG.md as the \
sweeper last wrote them (after your turns). OVERVIEW.md is cut at 64 KiB, CHANGELOG.md (newest \
entries first) to its newest 32 KiB; a cut is said.

--json prints one object: {project: <as in `paddock project ls --json`>, overview, \
overviewTruncated, changelog, changelogTruncated, chats, running, unread, sweptAt, sweepError}; \
overview and changelog are left out before the sweeper wrote them; sweepError says why the last \
sweep failed (then sweptAt is when it did, and the text says \"sweep failed\").",
        after_help = "\
Examples:
  paddock project show web
  paddock project show              the root workspace
  paddock project show web --json | jq -r .overview"
    )]
    Show {
        /// The project [default: the root workspace]
        #[arg(default_value = "")]
        slug: String,
        /// Print one JSON object (see above)
        #[arg(long)]
        json: bool,
    },
    /// Change a project's settings (kept in its project.toml, comments and all)
    #[command(
        long_about = "\
Change a project's settings. They are written into its project.toml as edits: your comments, \
order and other keys stay. --model, --drive-mode and --max-spawn-depth win over the daemon's \
own settings for this project's chats from their next turn. --unset KEY clears a setting (the \
daemon's default applies again); KEY is one of name, summary, area, status, model, drive-mode, \
max-spawn-depth. --allow RULE and --disallow RULE add and remove the project's tool rules \
(allowed_tools; see `paddock approvals --help` for their syntax). Prints the project as it is now.",
        after_help = "\
Examples:
  paddock project set web --summary 'The customer-facing web app' --status active
  paddock project set web --drive-mode batch --max-spawn-depth 2
  paddock project set web --unset model
  paddock project set web --disallow 'Bash(mkdir:*)'      a rule an \"always\" added
  paddock project set '' --summary 'Everything else'     the root workspace"
    )]
    Set {
        /// The project (`''` for the root workspace)
        slug: String,
        #[arg(long, value_name = "TEXT")]
        name: Option<String>,
        #[arg(long, value_name = "TEXT")]
        summary: Option<String>,
        #[arg(long, value_name = "TEXT")]
        area: Option<String>,
        #[arg(long, value_enum)]
        status: Option<ProjectStatusArg>,
        /// The model for chats that do not choose one
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
        /// session: one `claude` kept per chat between turns; batch: one per turn
        #[arg(long, value_enum)]
        drive_mode: Option<DriveModeArg>,
        /// How deep chats may spawn chats that get the agent tools (0-8)
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=8))]
        max_spawn_depth: Option<u32>,
        /// Clear a setting (repeatable)
        #[arg(long, value_enum, value_name = "KEY")]
        unset: Vec<ProjectKey>,
        /// Add a tool rule to allowed_tools: `Read`, `Bash(npm test:*)`, `Edit(src/**)`
        /// (repeatable; the syntax is in `paddock approvals --help`)
        #[arg(long, value_name = "RULE")]
        allow: Vec<String>,
        /// Remove a tool rule from allowed_tools, as `project show` lists it (repeatable)
        #[arg(long, value_name = "RULE")]
        disallow: Vec<String>,
    },
    /// Remove a project; refused while its turns run unless --force
    #[command(
        visible_alias = "delete",
        long_about = "\
Remove a project from paddock. Refused while one of its chats runs a turn, unless --force, which \
interrupts those turns first.

A directory of yours (given with `project add --path`) is never moved or deleted: the project is \
unregistered, and its data folder (project.toml with its triggers, OVERVIEW.md, CHANGELOG.md, \
and .chats with the chats' transcripts) is moved to the trash, `<data>/trash/SLUG-<time>/` \
(restorable: move it back to `<data>/projects/SLUG` and restart paddockd), or deleted with \
--delete-files.

A project whose files live in the data folder (a notebook, or a clone made by --repo) needs the \
choice said: --trash moves its folder to the trash, --delete-files deletes it.

Prints what was done. --json prints one object: {slug, path, pathKept, movedTo, chats, \
triggers, cancelledTurns, done}.",
        after_help = "\
Examples:
  paddock project rm web                  unregister; ~/src/web stays as it is
  paddock project rm notes --trash
  paddock project rm scratch --delete-files --force"
    )]
    Rm {
        slug: String,
        /// Interrupt the project's running turns instead of refusing
        #[arg(long)]
        force: bool,
        /// Delete the project's data folder instead of moving it to the trash
        #[arg(long, conflicts_with = "trash")]
        delete_files: bool,
        /// Move the project's data folder to the trash (the default for a directory of yours)
        #[arg(long)]
        trash: bool,
        /// Print one JSON object (see above)
        #[arg(long)]
        json: bool,
    },
    /// Make a notebook project repo-backed: clone a repository into it and work there
    #[command(
        long_about = "\
Promote a notebook project (its files in paddock's data folder) to a repo-backed one, in place: \
the daemon clones --repo into a folder named after the repository inside the project's folder, \
and the project's agents run there from their next start. Its chats stay listed and resumable, \
OVERVIEW.md and CHANGELOG.md stay, and its CLAUDE.md is renamed CLAUDE.notebook.md (the \
repository has its own). A clone that fails leaves the project as it was. Refused for the root \
workspace, a project with a directory of yours, and one that is repo-backed already.",
        after_help = "\
Examples:
  paddock project promote notes --repo git@github.com:ana/notes.git"
    )]
    Promote {
        slug: String,
        /// The repository to clone (as for `project add --repo`)
        #[arg(long, value_name = "URL")]
        repo: String,
    },
}

/// A project's status, as `--status` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProjectStatusArg {
    Idea,
    Active,
    Paused,
    Blocked,
    Done,
    Abandoned,
}

impl From<ProjectStatusArg> for paddock_proto::ProjectStatus {
    fn from(s: ProjectStatusArg) -> Self {
        match s {
            ProjectStatusArg::Idea => Self::Idea,
            ProjectStatusArg::Active => Self::Active,
            ProjectStatusArg::Paused => Self::Paused,
            ProjectStatusArg::Blocked => Self::Blocked,
            ProjectStatusArg::Done => Self::Done,
            ProjectStatusArg::Abandoned => Self::Abandoned,
        }
    }
}

/// How a project's chats run `claude`, as `--drive-mode` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DriveModeArg {
    Session,
    Batch,
}

/// A setting `project set --unset` clears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProjectKey {
    Name,
    Summary,
    Area,
    Status,
    Model,
    DriveMode,
    MaxSpawnDepth,
}

#[derive(Debug, Args)]
pub struct AttachmentArgs {
    /// The attachment's id (`<uuid><ext>`)
    pub id: String,
    /// Write to this file instead of stdout
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ApprovalsArgs {
    #[command(subcommand)]
    pub action: Option<ApprovalsCmd>,
    /// Print one JSON array of the pending approvals
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum ApprovalsCmd {
    /// Run the calls once
    Allow(ApprovalIds),
    /// Refuse the calls; the agent is told (with --message, why)
    Deny {
        #[command(flatten)]
        ids: ApprovalIds,
        /// What the agent is told
        #[arg(long, value_name = "TEXT")]
        message: Option<String>,
    },
    /// Run the calls, and add the rule each one shows to its project's allowed tools
    Always(ApprovalIds),
}

#[derive(Debug, Args)]
pub struct ApprovalIds {
    /// Approval ids, or unique prefixes of them (`paddock approvals` lists them)
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,
}

#[derive(Debug, Args)]
pub struct NotifyArgs {
    /// Exit after the first announcement (for scripts: wait until something needs you)
    #[arg(long)]
    pub once: bool,
}

#[derive(Debug, Args)]
pub struct UsageArgs {
    /// Only this project's chats [default: every project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Only this chat and the chats under it in the tree
    #[arg(long, value_name = "SESSION")]
    pub subtree: Option<String>,
    /// Only archived chats
    #[arg(long, conflicts_with = "all")]
    pub archived: bool,
    /// Active and archived chats
    #[arg(long)]
    pub all: bool,
    /// How many of the costliest chats to list
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Print the report as one JSON object
    #[arg(long)]
    pub json: bool,
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
    /// Every project's chats, project by project (the root workspace first)
    #[arg(short = 'A', long, conflicts_with = "project")]
    pub all_projects: bool,
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
    /// Start the new chat from the project's curated context: its OVERVIEW.md and the end of
    /// its CHANGELOG.md go before the message (when it has an overview)
    #[arg(long, conflicts_with = "session")]
    pub preload: bool,
    /// Attach a file to the message (repeatable): images and PDFs reach the model as they are,
    /// other files it reads; the daemon keeps a copy (limits: attachments_* in its config)
    #[arg(short = 'a', long = "attach", value_name = "FILE")]
    pub attach: Vec<PathBuf>,
    /// Print every frame of the turn as one JSON line instead of the reply text (with
    /// --detach: the accepted turn, {projectSlug, sessionId, jobId, queued})
    #[arg(long)]
    pub json: bool,
    /// The message; `-` reads it from stdin (so does no TEXT when stdin is not a terminal)
    #[arg(value_name = "TEXT")]
    pub text: Vec<String>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the checks as one JSON object (see the description for its shape)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct TailArgs {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
    /// Print every frame as one JSON line
    #[arg(long)]
    pub json: bool,
    /// When nothing is running or replayable, wait for the chat's next turn and follow it
    /// (by default tail says so and exits)
    #[arg(long, overrides_with = "no_wait")]
    pub wait: bool,
    /// The default (return at once when nothing is running); kept so older scripts still work
    #[arg(long, hide = true, overrides_with = "wait")]
    pub no_wait: bool,
}

#[derive(Debug, Args)]
pub struct SessionArg {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// tmux colour codes, for status-right
    #[arg(long, conflicts_with = "json")]
    pub tmux: bool,
    /// Print one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
    /// Print the transcript as one JSON object
    #[arg(long)]
    pub json: bool,
}

/// The chats of `archive`, `star`, `read`, `detach` and the like.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// The chats' session ids or unique prefixes of them (at most 500 in all)
    #[arg(value_name = "SESSION", required = true)]
    pub sessions: Vec<String>,
    /// Also every chat below each named one (its children, their children...), in any project
    #[arg(long)]
    pub subtree: bool,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The chats' session ids or unique prefixes of them (at most 500 in all)
    #[arg(value_name = "SESSION", required = true)]
    pub sessions: Vec<String>,
    /// Also every chat below each named one (its children, their children...), in any project
    #[arg(long)]
    pub subtree: bool,
    /// Do not ask for confirmation (required when stdin is not a terminal)
    #[arg(short = 'y', long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The chat to fork
    pub session: String,
    /// The fork's title [default: the chat's title]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Print {projectSlug, sessionId} of the new chat as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to find (each as the start of a word) and "quoted phrases"
    #[arg(value_name = "QUERY", required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Only this project's chats [default: every project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Archived chats too
    #[arg(long)]
    pub archived: bool,
    /// At most this many chats, best first [default: 50; at most 500]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub limit: Option<u32>,
    /// Print the daemon's reply as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only this project's runs [default: every project]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Only the runs that ran without you: scheduled, spawned and hook runs
    #[arg(long)]
    pub unattended: bool,
    /// At most this many runs, newest first [default: 100; at most 500]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    pub limit: Option<u32>,
    /// Print the history as one JSON object (never marks the runs seen)
    #[arg(long)]
    pub json: bool,
    /// Leave the new runs marked new, so "while you were away" shows again next time
    #[arg(long)]
    pub keep_unseen: bool,
}

#[derive(Debug, Args)]
pub struct ProvenanceArgs {
    /// The file
    pub file: PathBuf,
    /// The project [default: the one whose directory holds FILE]; FILE is then relative to its
    /// directory
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print the provenance as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct FilesArgs {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
    /// Only this turn (its job id, as `paddock history --json` or `paddock files --json` give it)
    #[arg(long, value_name = "JOB")]
    pub turn: Option<String>,
    /// The chat's project [default: found from the chat]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print the files as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LsFilesArgs {
    /// The directory, relative to the project's directory [default: its top]
    pub path: Option<String>,
    /// The project [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Also list names starting with a dot (.git among them)
    #[arg(short = 'a', long)]
    pub all: bool,
    /// At most this many entries (default and cap 2000)
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,
    /// Print the listing as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct BlameArgs {
    /// The file (a text file of at most 4 MiB)
    pub file: PathBuf,
    /// The project [default: the one whose directory holds FILE]; FILE is then relative to its
    /// directory
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print the blame as one JSON object
    #[arg(long)]
    pub json: bool,
}

/// A git command's project and scope.
#[derive(Debug, Args)]
pub struct GitScopeArgs {
    /// The project [default: the chat's, with --chat or --turn; else the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Only the files this chat's tool calls wrote
    #[arg(long, value_name = "SESSION", conflicts_with = "turn")]
    pub chat: Option<String>,
    /// With --chat: also the files of every chat below it (its children, their children...)
    #[arg(long, requires = "chat")]
    pub subtree: bool,
    /// Only the files one turn wrote: the chat's session id and the turn's job id
    #[arg(long, value_name = "SESSION:JOB")]
    pub turn: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum GitCmd {
    /// The branch, how far it is from its upstream, and the changed files
    #[command(
        long_about = "\
Show the branch, the abbreviated HEAD, the upstream and how far ahead and behind it is, then one \
line per changed file in git's short format: two status letters (the index's, then the working \
tree's: M modified, A added, D deleted, R renamed, U unmerged, ?? untracked) and the path, \
relative to the project's directory. A scoped status lists only the scope's files and says how \
many other changed files it left out. A directory outside any repository says so (exit status 0).

--json prints the daemon's reply as one object: {projectSlug, isRepo, branch, head, upstream, \
ahead, behind, files: [{path, origPath, index, worktree}] (`.` where unchanged), hidden, notes}.",
        after_help = "\
Examples:
  paddock git status -p web
  paddock git status --chat SESSION --subtree
  paddock git status --turn SESSION:JOB --json | jq -r '.files[].path'"
    )]
    Status(GitStatusArgs),
    /// The diff of the changes against HEAD, untracked files shown as added
    #[command(
        long_about = "\
Print the unified diff of the changes against HEAD (staged and unstaged together; untracked \
files as added), limited to the scope's files, or to PATH. Plain text on stdout, for a pager or \
a file. The diff is cut at 2 MB, which is said on stderr.

--json prints {projectSlug, isRepo, diff, files, truncated, hidden}.",
        after_help = "\
Examples:
  paddock git diff -p web | less -R
  paddock git diff --chat SESSION src/auth/cookie.ts
  paddock git diff --turn SESSION:JOB > turn.patch"
    )]
    Diff(GitDiffArgs),
    /// Commit the scope's changed files (only those; other changes stay as they are)
    #[command(
        long_about = "\
Stage and commit exactly the scope's changed files, or the PATHs given (each must be one of \
them), with the message. Other changes, staged or not, are left as they were. The author is your \
git configuration (user.name and user.email); without one the error says how to set it.

Refused with a reason: an empty message, nothing to commit, a detached HEAD, or a merge or \
rebase in progress. Prints the new commit's short id, its branch and the files.

With --push, the branch is then pushed as `paddock git push` does; a push that fails leaves the \
commit made (exit status 1).

--json prints {projectSlug, commit, branch, files}; with --push, {committed: that, pushed: \
what `paddock git push --json` prints}.",
        after_help = "\
Examples:
  paddock git commit --chat SESSION -m 'Fix the cookie refresh race'
  paddock git commit --chat SESSION --subtree -m 'Nightly clean-up'
  paddock git commit -p web -m 'Docs' docs/API.md --push"
    )]
    Commit(GitCommitArgs),
    /// Push the branch to its upstream (the first time, to origin, which becomes the upstream)
    #[command(
        long_about = "\
Push the project's checked-out branch to its upstream. A branch with no upstream goes to the \
branch of the same name on `origin`, which becomes its upstream; with no `origin` either, the \
error says how to add one. Never forced. With --data-root, the data directory's own repository \
(where paddockd commits the curated files and the chats) is pushed instead.

git runs without prompts (no terminal, no askpass program, ssh in batch mode), so missing \
credentials fail at once with git's message: set up a credential helper or an ssh agent. It is \
stopped after 120 s.

Prints the branch, the remote branch and the commits it moved between, or that it was up to \
date. Refused with a reason: a detached HEAD, a branch with no commits, no remote. When git \
fails (the remote has commits the branch lacks: pull or rebase first; credentials; an \
unreachable remote) the error says why and quotes git (exit status 1).

--json prints {projectSlug, dataRoot, branch, remote, remoteBranch, from, to, upToDate, \
setUpstream}.",
        after_help = "\
Examples:
  paddock git push -p web
  paddock git push --data-root
  paddock git push -p web --json | jq -r .to"
    )]
    Push(GitPushArgs),
}

#[derive(Debug, Args)]
pub struct GitStatusArgs {
    #[command(flatten)]
    pub scope: GitScopeArgs,
    /// Print the status as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GitDiffArgs {
    #[command(flatten)]
    pub scope: GitScopeArgs,
    /// One file, relative to the project's directory
    pub path: Option<String>,
    /// Print the diff and what it covers as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GitCommitArgs {
    #[command(flatten)]
    pub scope: GitScopeArgs,
    /// The commit message
    #[arg(short = 'm', long = "message", value_name = "MESSAGE", required = true)]
    pub message: String,
    /// Only these of the scope's changed files, relative to the project's directory
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// Then push the branch to its upstream, as `paddock git push` does
    #[arg(long)]
    pub push: bool,
    /// Print the new commit as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GitPushArgs {
    /// The project [default: the root workspace]
    #[arg(
        short = 'p',
        long = "project",
        value_name = "SLUG",
        conflicts_with = "data_root"
    )]
    pub project: Option<String>,
    /// Push the data directory's own repository (where paddockd commits its files) instead
    #[arg(long)]
    pub data_root: bool,
    /// Print what was pushed as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The project the chats join [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// The directory whose `claude` sessions to adopt [default: the project's directory]
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// Say what would be adopted and skipped; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print the outcome as one JSON object, skipped sessions included
    #[arg(long)]
    pub json: bool,
}

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
    fn remote_is_a_global_option_and_proxy_a_command() -> Result<(), clap::Error> {
        let cli = parse(&[
            "ls",
            "--remote",
            "me@devbox",
            "--remote-paddock",
            "~/bin/paddock",
            "--socket",
            "/run/p.sock",
        ])?;
        assert_eq!(cli.remote.as_deref(), Some("me@devbox"));
        assert_eq!(cli.remote_paddock, Some(PathBuf::from("~/bin/paddock")));
        assert_eq!(cli.socket, Some(PathBuf::from("/run/p.sock")));
        assert!(matches!(cli.command, Some(Cmd::Ls(_))));
        let cli = parse(&["--remote", "devbox"])?;
        assert!(cli.command.is_none(), "the TUI, through ssh");
        assert!(matches!(
            parse(&["proxy"])?.command,
            Some(Cmd::Proxy { no_start: false })
        ));
        assert!(parse(&["proxy", "extra"]).is_err());
        Ok(())
    }

    #[test]
    fn search_takes_words_and_its_options() -> Result<(), clap::Error> {
        assert!(parse(&["search"]).is_err(), "a query is required");
        let cli = parse(&["search", "cookie", "\"refresh race\""])?;
        let Some(Cmd::Search(args)) = cli.command else {
            panic!("not search: {:?}", cli.command);
        };
        assert_eq!(args.query, ["cookie", "\"refresh race\""]);
        assert_eq!((args.project, args.limit), (None, None));
        assert!(!args.archived && !args.json);
        let cli = parse(&[
            "search",
            "-p",
            "web",
            "flaky",
            "--archived",
            "--limit",
            "500",
            "--json",
        ])?;
        let Some(Cmd::Search(args)) = cli.command else {
            panic!("not search: {:?}", cli.command);
        };
        assert_eq!(args.query, ["flaky"]);
        assert_eq!(args.project.as_deref(), Some("web"));
        assert_eq!(args.limit, Some(500));
        assert!(args.archived && args.json);
        assert!(parse(&["search", "x", "--limit", "0"]).is_err());
        assert!(parse(&["search", "x", "--limit", "501"]).is_err());
        Ok(())
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
    fn project_show_set_rm_promote() -> Result<(), clap::Error> {
        let cli = parse(&["project", "show"])?;
        let Some(Cmd::Project {
            action: ProjectCmd::Show { slug, json: false },
        }) = cli.command
        else {
            panic!("not project show: {:?}", cli.command);
        };
        assert_eq!(slug, "", "no slug: the root workspace");
        let cli = parse(&[
            "project",
            "set",
            "web",
            "--status",
            "paused",
            "--max-spawn-depth",
            "2",
            "--unset",
            "model",
            "--unset",
            "drive-mode",
        ])?;
        let Some(Cmd::Project {
            action:
                ProjectCmd::Set {
                    status,
                    max_spawn_depth,
                    unset,
                    ..
                },
        }) = cli.command
        else {
            panic!("not project set: {:?}", cli.command);
        };
        assert_eq!(status, Some(ProjectStatusArg::Paused));
        assert_eq!(max_spawn_depth, Some(2));
        assert_eq!(unset, [ProjectKey::Model, ProjectKey::DriveMode]);
        assert!(parse(&["project", "set", "web", "--max-spawn-depth", "9"]).is_err());
        assert!(parse(&["project", "rm", "web", "--trash", "--delete-files"]).is_err());
        assert!(
            parse(&["project", "promote", "notes"]).is_err(),
            "--repo is required"
        );
        let cli = parse(&[
            "project",
            "add",
            "api",
            "--repo",
            "git@github.com:ana/api.git",
        ])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Project {
                action: ProjectCmd::Add { repo: Some(_), .. }
            })
        ));
        Ok(())
    }

    #[test]
    fn project_add_and_ls() -> Result<(), clap::Error> {
        let cli = parse(&["project", "add", "web", "--path", "src/web"])?;
        let Some(Cmd::Project {
            action: ProjectCmd::Add { slug, path, .. },
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
        assert!(
            args.json && !args.wait,
            "--no-wait is the default, still accepted"
        );
        let cli = parse(&["tail", "s1", "--wait"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Tail(TailArgs { wait: true, .. }))
        ));
        let cli = parse(&["tail", "s1", "--wait", "--no-wait"])?;
        assert!(
            matches!(cli.command, Some(Cmd::Tail(TailArgs { wait: false, .. }))),
            "the last one wins"
        );
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
        assert!(parse(&["doctor"]).is_ok());
        // `trigger` is here, and wants one of its subcommands.
        assert!(parse(&["trigger"]).is_err());
        assert!(parse(&["trigger", "ls"]).is_ok());
    }

    fn trigger(args: &[&str]) -> Result<TriggerCmd, clap::Error> {
        let argv: Vec<&str> = std::iter::once("trigger")
            .chain(args.iter().copied())
            .collect();
        match parse(&argv)?.command {
            Some(Cmd::Trigger { action }) => Ok(action),
            other => panic!("not trigger: {other:?}"),
        }
    }

    fn trigger_add(args: &[&str]) -> Result<TriggerAddArgs, clap::Error> {
        let argv: Vec<&str> = std::iter::once("add").chain(args.iter().copied()).collect();
        match trigger(&argv)? {
            TriggerCmd::Add(args) => Ok(*args),
            other => panic!("not trigger add: {other:?}"),
        }
    }

    #[test]
    fn trigger_ls_is_every_project_unless_one_is_named() -> Result<(), clap::Error> {
        let TriggerCmd::Ls(args) = trigger(&["ls"])? else {
            panic!("not trigger ls");
        };
        assert_eq!(args.project, None);
        assert!(!args.json);
        let TriggerCmd::Ls(args) = trigger(&["list", "-p", "", "--json"])? else {
            panic!("not trigger ls");
        };
        // The root workspace is a real key.
        assert_eq!(args.project.as_deref(), Some(""));
        assert!(args.json);
        Ok(())
    }

    #[test]
    fn trigger_add_takes_every_option() -> Result<(), clap::Error> {
        let args = trigger_add(&[
            "nightly",
            "-p",
            "web",
            "--cron",
            "0 2 * * *",
            "--tz",
            "Europe/Berlin",
            "--missed",
            "run_once",
            "--resume",
            "--model",
            "haiku",
            "--disabled",
            "--json",
            "--prompt",
            "Check the backup.",
        ])?;
        assert_eq!(args.name, "nightly");
        assert_eq!(args.project.as_deref(), Some("web"));
        assert_eq!(args.cron.as_deref(), Some("0 2 * * *"));
        assert_eq!(args.tz.as_deref(), Some("Europe/Berlin"));
        assert_eq!(args.missed, Some(MissedArg::RunOnce));
        assert!(args.resume && args.disabled && args.json);
        assert_eq!(args.model.as_deref(), Some("haiku"));
        assert_eq!(args.prompt.as_deref(), Some("Check the backup."));
        assert_eq!((args.every, args.on, args.stdin), (None, None, None));

        let args = trigger_add(&[
            "docs",
            "--on",
            "file_changed",
            "--path",
            "docs/**",
            "--path",
            "*.md",
            "--debounce",
            "10",
            "-",
        ])?;
        assert_eq!(args.on, Some(HookEventArg::FileChanged));
        assert_eq!(args.paths, ["docs/**", "*.md"]);
        assert_eq!(args.debounce, Some(10));
        assert_eq!(args.stdin.as_deref(), Some("-"));
        assert_eq!(args.project, None);
        assert!(!args.resume && !args.disabled);

        let args = trigger_add(&["inbox", "--every", "15m", "--prompt-file", "p.md"])?;
        assert_eq!(args.every.as_deref(), Some("15m"));
        assert_eq!(args.prompt_file, Some(PathBuf::from("p.md")));
        // The dashed spellings are accepted too.
        let args = trigger_add(&["x", "--on", "turn-completed", "--prompt", "p"])?;
        assert_eq!(args.on, Some(HookEventArg::TurnCompleted));
        let args = trigger_add(&[
            "x", "--every", "1h", "--missed", "run-once", "--prompt", "p",
        ])?;
        assert_eq!(args.missed, Some(MissedArg::RunOnce));
        Ok(())
    }

    #[test]
    fn trigger_add_is_exactly_one_of_cron_every_on() {
        // None, or two at once.
        assert!(trigger_add(&["x", "--prompt", "p"]).is_err());
        assert!(
            trigger_add(&["x", "--cron", "0 2 * * *", "--every", "1h", "--prompt", "p"]).is_err()
        );
        assert!(trigger_add(&["x", "--every", "1h", "--on", "manual", "--prompt", "p"]).is_err());
        // What belongs to one kind is refused with another.
        for wrong in [
            &["--every", "1h", "--tz", "UTC"][..],
            &["--on", "manual", "--tz", "UTC"],
            &["--tz", "UTC"],
            &["--cron", "0 2 * * *", "--path", "docs/**"],
            &["--every", "1h", "--debounce", "3"],
            &["--on", "turn_failed", "--missed", "skip"],
            &["--on", "whenever"],
            &["--every", "1h", "--missed", "sometimes"],
        ] {
            let argv: Vec<&str> = ["x"]
                .iter()
                .chain(wrong)
                .chain(&["--prompt", "p"])
                .copied()
                .collect();
            assert!(trigger_add(&argv).is_err(), "{argv:?} should not parse");
        }
        assert!(
            trigger_add(&["--every", "1h", "--prompt", "p"]).is_err(),
            "no name"
        );
    }

    #[test]
    fn trigger_add_takes_one_prompt_source() {
        assert!(trigger_add(&["x", "--every", "1h"]).is_err());
        assert!(trigger_add(&["x", "--every", "1h", "--prompt", "p", "-"]).is_err());
        assert!(
            trigger_add(&["x", "--every", "1h", "--prompt", "p", "--prompt-file", "f"]).is_err()
        );
        // A stray word (an unquoted cron, a prompt without --prompt) is not taken for `-`.
        let err = trigger_add(&["x", "--cron", "0", "2", "--prompt", "p"]);
        assert!(err.is_err_and(|e| e.to_string().contains("quote an argument with spaces")));
        assert!(trigger_add(&["x", "--every", "1h", "Check it"]).is_err());
    }

    #[test]
    fn trigger_rm_and_fire() -> Result<(), clap::Error> {
        assert!(trigger(&["rm"]).is_err());
        let TriggerCmd::Rm(args) = trigger(&["remove", "nightly", "-p", "web"])? else {
            panic!("not trigger rm");
        };
        assert_eq!(
            (args.name.as_str(), args.project.as_deref()),
            ("nightly", Some("web"))
        );

        assert!(trigger(&["fire"]).is_err());
        let TriggerCmd::Fire(args) = trigger(&["fire", "ci", "--message", "CI failed", "--json"])?
        else {
            panic!("not trigger fire");
        };
        assert_eq!(args.name, "ci");
        assert_eq!(args.project, None);
        assert_eq!(args.message.as_deref(), Some("CI failed"));
        assert!(args.json && args.stdin.is_none());
        let TriggerCmd::Fire(args) = trigger(&["fire", "ci", "-p", "", "-"])? else {
            panic!("not trigger fire");
        };
        assert_eq!(args.project.as_deref(), Some(""));
        assert_eq!(args.stdin.as_deref(), Some("-"));
        assert!(trigger(&["fire", "ci", "--message", "m", "-"]).is_err());
        assert!(trigger(&["fire", "ci", "CI failed"]).is_err());
        Ok(())
    }

    #[test]
    fn flag_commands_take_sessions_and_subtree() -> Result<(), clap::Error> {
        for name in [
            "archive",
            "unarchive",
            "star",
            "unstar",
            "read",
            "unread",
            "detach",
            "attach",
        ] {
            assert!(parse(&[name]).is_err(), "{name} needs a session");
            let cli = parse(&[name, "s1", "s2", "--subtree"])?;
            let args = match cli.command {
                Some(
                    Cmd::Archive(a)
                    | Cmd::Unarchive(a)
                    | Cmd::Star(a)
                    | Cmd::Unstar(a)
                    | Cmd::Read(a)
                    | Cmd::Unread(a)
                    | Cmd::Detach(a)
                    | Cmd::Attach(a),
                ) => a,
                other => panic!("{name} parsed as {other:?}"),
            };
            assert_eq!(args.sessions, ["s1", "s2"]);
            assert!(args.subtree);
        }
        let cli = parse(&["archive", "s1"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Archive(UpdateArgs { subtree: false, .. }))
        ));
        Ok(())
    }

    #[test]
    fn ls_files_takes_a_path_project_and_flags() -> Result<(), clap::Error> {
        let cli = parse(&["ls-files", "-p", "web", "src", "-a", "--json"])?;
        let Some(Cmd::LsFiles(args)) = cli.command else {
            panic!("not ls-files: {:?}", cli.command);
        };
        assert_eq!(args.path.as_deref(), Some("src"));
        assert_eq!(args.project.as_deref(), Some("web"));
        assert!(args.all && args.json && args.limit.is_none());
        Ok(())
    }

    #[test]
    fn delete_fork_history_import() -> Result<(), clap::Error> {
        assert!(parse(&["delete"]).is_err());
        let cli = parse(&["delete", "-y", "--subtree", "s1"])?;
        let Some(Cmd::Delete(args)) = cli.command else {
            panic!("not delete: {:?}", cli.command);
        };
        assert!(args.yes && args.subtree);
        assert_eq!(args.sessions, ["s1"]);

        assert!(parse(&["fork"]).is_err());
        assert!(parse(&["fork", "s1", "s2"]).is_err());
        let cli = parse(&["fork", "s1", "--name", "try again", "--json"])?;
        let Some(Cmd::Fork(args)) = cli.command else {
            panic!("not fork: {:?}", cli.command);
        };
        assert_eq!(args.session, "s1");
        assert_eq!(args.name.as_deref(), Some("try again"));
        assert!(args.json);

        let cli = parse(&["history"])?;
        let Some(Cmd::History(args)) = cli.command else {
            panic!("not history: {:?}", cli.command);
        };
        // No -p: every project, not the root workspace.
        assert_eq!(args.project, None);
        assert!(!args.unattended && !args.json && !args.keep_unseen);
        assert_eq!(args.limit, None);
        let cli = parse(&[
            "history",
            "-p",
            "",
            "--unattended",
            "--limit",
            "500",
            "--json",
            "--keep-unseen",
        ])?;
        let Some(Cmd::History(args)) = cli.command else {
            panic!("not history: {:?}", cli.command);
        };
        assert_eq!(args.project.as_deref(), Some(""));
        assert!(args.unattended && args.json && args.keep_unseen);
        assert_eq!(args.limit, Some(500));
        assert!(parse(&["history", "--limit", "0"]).is_err());
        assert!(parse(&["history", "--limit", "501"]).is_err());

        let cli = parse(&["import", "-p", "web", "--path", "src/web", "--dry-run"])?;
        let Some(Cmd::Import(args)) = cli.command else {
            panic!("not import: {:?}", cli.command);
        };
        assert_eq!(args.project.as_deref(), Some("web"));
        assert_eq!(args.path, Some(PathBuf::from("src/web")));
        assert!(args.dry_run && !args.json);

        let cli = parse(&["provenance", "src/a.ts"])?;
        let Some(Cmd::Provenance(args)) = cli.command else {
            panic!("not provenance: {:?}", cli.command);
        };
        assert_eq!(args.file, PathBuf::from("src/a.ts"));
        assert_eq!(args.project, None);
        assert!(!args.json);
        let cli = parse(&["provenance", "-p", "web", "a.ts", "--json"])?;
        let Some(Cmd::Provenance(args)) = cli.command else {
            panic!("not provenance: {:?}", cli.command);
        };
        assert_eq!(args.project.as_deref(), Some("web"));
        assert!(args.json);
        assert!(parse(&["provenance"]).is_err());

        let cli = parse(&["blame", "-p", "web", "src/a.ts", "--json"])?;
        let Some(Cmd::Blame(args)) = cli.command else {
            panic!("not blame: {:?}", cli.command);
        };
        assert_eq!(args.file, PathBuf::from("src/a.ts"));
        assert_eq!(args.project.as_deref(), Some("web"));
        assert!(args.json);
        assert!(parse(&["blame"]).is_err());

        let cli = parse(&["files", "5f0c2d8e", "--turn", "0193f4c2", "--json"])?;
        let Some(Cmd::Files(args)) = cli.command else {
            panic!("not files: {:?}", cli.command);
        };
        assert_eq!(args.session, "5f0c2d8e");
        assert_eq!(args.turn.as_deref(), Some("0193f4c2"));
        assert_eq!(args.project, None);
        assert!(args.json);
        assert!(parse(&["files"]).is_err());

        let cli = parse(&["usage", "--subtree", "abc", "--all", "--top", "3", "--json"])?;
        let Some(Cmd::Usage(args)) = cli.command else {
            panic!("not usage: {:?}", cli.command);
        };
        assert_eq!(args.subtree.as_deref(), Some("abc"));
        assert!(args.all && args.json && !args.archived);
        assert_eq!(args.top, 3);
        assert!(parse(&["usage", "--all", "--archived"]).is_err());
        let cli = parse(&["notify", "--once"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Notify(NotifyArgs { once: true }))
        ));
        let cli = parse(&["send", "--preload", "hello"])?;
        let Some(Cmd::Send(args)) = cli.command else {
            panic!("not send: {:?}", cli.command);
        };
        assert!(args.preload);
        assert!(parse(&["send", "--preload", "-c", "abc", "hello"]).is_err());
        let cli = parse(&["send", "-a", "a.png", "--attach", "b.pdf", "look"])?;
        let Some(Cmd::Send(args)) = cli.command else {
            panic!("not send: {:?}", cli.command);
        };
        assert_eq!(
            args.attach,
            [PathBuf::from("a.png"), PathBuf::from("b.pdf")]
        );
        let cli = parse(&["attachment", "x.png", "-o", "out.png"])?;
        let Some(Cmd::Attachment(args)) = cli.command else {
            panic!("not attachment: {:?}", cli.command);
        };
        assert_eq!(
            (args.id.as_str(), args.output),
            ("x.png", Some(PathBuf::from("out.png")))
        );

        let cli = parse(&["git", "status", "--chat", "abc", "--subtree", "--json"])?;
        let Some(Cmd::Git {
            action: GitCmd::Status(args),
        }) = cli.command
        else {
            panic!("not git status: {:?}", cli.command);
        };
        assert_eq!(args.scope.chat.as_deref(), Some("abc"));
        assert!(args.scope.subtree && args.json);
        let cli = parse(&["git", "diff", "-p", "web", "--turn", "s:j", "src/a.ts"])?;
        let Some(Cmd::Git {
            action: GitCmd::Diff(args),
        }) = cli.command
        else {
            panic!("not git diff: {:?}", cli.command);
        };
        assert_eq!(args.scope.turn.as_deref(), Some("s:j"));
        assert_eq!(args.path.as_deref(), Some("src/a.ts"));
        let cli = parse(&["git", "commit", "-m", "msg", "a.txt", "b.txt"])?;
        let Some(Cmd::Git {
            action: GitCmd::Commit(args),
        }) = cli.command
        else {
            panic!("not git commit: {:?}", cli.command);
        };
        assert_eq!(args.message, "msg");
        assert_eq!(args.paths, ["a.txt", "b.txt"]);
        assert!(
            parse(&["git", "commit", "a.txt"]).is_err(),
            "a message is required"
        );
        assert!(parse(&["git", "status", "--subtree"]).is_err());
        assert!(parse(&["git", "status", "--chat", "a", "--turn", "a:b"]).is_err());
        let cli = parse(&["git", "commit", "-m", "msg", "--push"])?;
        assert!(matches!(
            cli.command,
            Some(Cmd::Git {
                action: GitCmd::Commit(GitCommitArgs { push: true, .. })
            })
        ));
        let cli = parse(&["git", "push", "-p", "web", "--json"])?;
        let Some(Cmd::Git {
            action: GitCmd::Push(args),
        }) = cli.command
        else {
            panic!("not git push: {:?}", cli.command);
        };
        assert_eq!(args.project.as_deref(), Some("web"));
        assert!(args.json && !args.data_root);
        assert!(parse(&["git", "push", "--data-root"]).is_ok());
        assert!(parse(&["git", "push", "-p", "web", "--data-root"]).is_err());
        Ok(())
    }

    #[test]
    fn approvals_list_and_answer_and_ls_every_project() -> Result<(), clap::Error> {
        let cli = parse(&["approvals", "--json"])?;
        let Some(Cmd::Approvals(args)) = cli.command else {
            panic!("not approvals: {:?}", cli.command);
        };
        assert!(args.json && args.action.is_none());
        let cli = parse(&["approvals", "deny", "3f9c", "81ab", "--message", "no"])?;
        let Some(Cmd::Approvals(ApprovalsArgs {
            action: Some(ApprovalsCmd::Deny { ids, message }),
            ..
        })) = cli.command
        else {
            panic!("not approvals deny: {:?}", cli.command);
        };
        assert_eq!(
            (ids.ids, message.as_deref()),
            (vec!["3f9c".into(), "81ab".into()], Some("no"))
        );
        assert!(
            parse(&["approvals", "always"]).is_err(),
            "an id is required"
        );
        assert!(parse(&["approvals", "allow", "--message", "x", "3f9c"]).is_err());
        let cli = parse(&["ls", "-A", "--archived"])?;
        let Some(Cmd::Ls(args)) = cli.command else {
            panic!("not ls: {:?}", cli.command);
        };
        assert!(args.all_projects && args.archived);
        assert!(
            parse(&["ls", "-A", "-p", "web"]).is_err(),
            "one project or all"
        );
        let cli = parse(&[
            "project",
            "set",
            "web",
            "--disallow",
            "Bash(mkdir:*)",
            "--allow",
            "Read",
        ])?;
        let Some(Cmd::Project {
            action: ProjectCmd::Set {
                allow, disallow, ..
            },
        }) = cli.command
        else {
            panic!("not project set: {:?}", cli.command);
        };
        assert_eq!(
            (allow, disallow),
            (vec!["Read".to_owned()], vec!["Bash(mkdir:*)".to_owned()])
        );
        Ok(())
    }
}
