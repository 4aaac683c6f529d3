//! The `paddock` command line (DESIGN §6 — a contract users and acceptance tests script).
//!
//! `xtask` builds the man page and shell completions from [`command`], so every help text here
//! is user documentation: say what a command does, its defaults, and show an example.

mod about;
mod approvals;
mod chats;
mod daemon;
mod git;
mod project;
mod provenance;
#[cfg(test)]
mod tests;
mod trigger;
mod worktree;

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};

use about::{ABOUT, EXAMPLES, LONG_ABOUT};
pub use approvals::*;
pub use chats::*;
pub use daemon::*;
pub use git::*;
pub use project::*;
pub use provenance::*;
pub use trigger::*;
pub use worktree::*;

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
    /// machine's; HOST is anything ssh takes (`devbox`, `me@devbox.example.com`) or a host of
    /// the client's configuration (`paddock hosts --help`). Give it several times (or
    /// PADDOCK_REMOTE=a,b) for one client over several devboxes
    #[arg(
        long,
        global = true,
        env = "PADDOCK_REMOTE",
        value_name = "HOST",
        value_delimiter = ','
    )]
    pub remote: Vec<String>,

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
more than one hop from its root shows the hops, e.g. `spawned·2`); five flags; CTX, how full the \
chat's context window is (e.g. `42%`, blank when unknown); and the title. Flags: R running, \
U unread, S starred, A archived; then what it waits for you to do, the most urgent: W answer a \
tool call (paddock approvals), F look at its failed run, I continue its turn cut short (paddock \
continue), P wait out a usage limit; `-` where not set.

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

Ctrl-C cancels the running turn (the chat stays resumable); a second Ctrl-C stops waiting.

Exit status, by how the turn ended (the same for tail and continue):
  0    done
  1    failed: the reason is on stderr (or the message could not be sent)
  75   cut short: paddockd stopped (or was killed), or its claude died or hung; `paddock continue SESSION` goes on
  130  cancelled: by Ctrl-C, `paddock cancel`, the TUI or another client; the chat stays resumable

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
Exits as `paddock send` does by how the turn ended (1 failed, 75 cut short, 130 cancelled), \
and 1 when there is no such chat.",
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

    /// Continue a chat whose last turn was cut short, and stream the new turn's reply
    #[command(
        long_about = "\
Continue a chat whose last turn was cut short: its claude died or hung and was stopped, or \
paddockd stopped while the turn ran (`paddock ls --json` says `interrupted`, `paddock show` \
ends with the turn cut short, the TUI marks it and continues it with C). A new turn tells the \
agent to continue from where it left off, and its reply streams to stdout as with `paddock \
send`; the session id goes to stderr as `session: <id>`. A new chat cut short before claude \
wrote a word of it gets its first message sent again.

Fails with exit status 1, saying what to do instead, when there is nothing to continue: the \
chat's last turn completed, failed or was cancelled (send it a message: `paddock send -c \
SESSION ...`), or a turn is running in it (`paddock tail SESSION` follows it). A daemon \
configured not to offer continuing (recovery_surface = false) refuses, naming the setting.

Ctrl-C cancels the new turn; a second Ctrl-C stops waiting. Exits as `paddock send` does by \
how the turn ended (1 failed, 75 cut short, 130 cancelled). As with `paddock send`, the chat is marked read when the turn ends, unless --detach or \
--json.",
        after_help = "\
Examples:
  paddock continue 0198c3e1               after a crash or a restart cut its turn short
  paddock continue --detach 0198c3e1      start it, print the session id and return
  paddock ls -A --json | jq -r '.[] | select(.interrupted) | .sessionId' | xargs -n1 paddock continue --detach"
    )]
    Continue(ContinueArgs),

    /// Print a chat's transcript, with who injected each machine-added message
    #[command(
        long_about = "\
Print a chat's transcript: user and assistant messages, tool calls and their results, \
thinking, compactions, interruptions and API errors. A user message injected by a machine \
has an attribution line above it:

  ⏰ scheduled by NAME          a schedule fired it
  ↩ sent by CHAT               another chat sent it (its title, else its session id)
  ⚡ triggered by hook NAME     an event hook fired it
  ⚠ continued after its last turn was cut short

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
adds the rules that make this call allowed next time and nothing wider, written like Claude \
Code's own permission rules; the list (and the preview) says which before you answer \
(`always: adds Bash(mkdir:*), Bash(echo:*), Write(build/**) to project demo`):

  Bash(CMD:*)      for each part of a command line (split at &&, ||, ;, |) not allowed yet: its \
first word, or the first two when the first is one whose second word says what it does (git, \
npm, pnpm, yarn, bun, npx, cargo, go, docker, kubectl, gh, make, pip, uv, ...: \
`Bash(git commit:*)`). Never all of Bash. A part whose other words name a path outside the \
project gets that command exactly instead (`Bash(cat ../notes.txt)`): `Bash(cat:*)` would read \
any file.
  Write(DIR/**)    a file a command redirects to (`> build/out.txt`), as a write.
  Edit(DIR/**)     Edit, Write, MultiEdit, NotebookEdit, Read: inside the project, the folder \
of the file (where it really leads, links followed) and below (`Edit(src/**)`; `Edit(**)` at its \
top); outside it, that one file (`Read(/home/ana/notes.txt)`), never its folder. Glob and Grep: \
the directory searched.
  WebFetch(domain:HOST)   fetches from HOST.
  TOOL             any other tool (an MCP tool...), which has no input to scope.

No rule can cover a command with $(...), backticks, a subshell, a here-document or a shell \
keyword (if, for, while...), a path through a variable or a link to nothing: the list says why, \
and always then allows the call once.

A path is shown as where it really leads: `/srv/x (outside the project; named out/x)`.

`paddock project show` lists a project's rules; `paddock project set SLUG --disallow RULE` \
removes one.

--json prints one array of approvals: {id, projectSlug, sessionId, jobId, title, origin, depth, \
tool, input, preview, askedAt, alwaysRules, alwaysWhyNot}. Answering prints one line per approval.",
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
send_file notice. Snapshots never change, even when the agent's file does. To a file or a pipe \
the bytes go as they are; on a terminal they are shown as text, with what the terminal would act \
on (an escape sequence, a carriage return) made visible, as every command shows content.",
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

    /// Move a chat, with the chats under it, to another project (a new one if need be)
    #[command(
        long_about = "\
Move a chat to another project, with every chat under it in its project's tree. Their \
transcripts are moved (never copied) into the target project's folder; their ids, origins, \
flags, read state, queued follow-ups and History go with them, and their next turns run in the \
target's directory. The files they changed stay in the project they left, with their \
provenance (`paddock provenance` and `blame` there still name the chats). A SLUG no project \
has makes a new project first (its folder in paddock's data), as `paddock project add SLUG` \
would, and the output says so (`paddock project rm SLUG` removes one made by a typo); `--to \
''` is the root workspace. Refused, moving nothing, while a turn of one of the chats runs, for a chat with its \
own worktree (merge or discard it first), and in host mode. (`paddock project promote` is \
another thing: it makes a notebook project repo-backed.)",
        after_help = "\
Examples:
  paddock promote 0198c3e1-... --to login-service     into a project, made if need be
  paddock promote 0198c3e1-... --to ''                back to the root workspace
  paddock promote 0198c3e1-... --to web --json        {fromProject, toProject, sessionIds[, createdProject]}

--json: createdProject is there (true) only when the move made the project."
    )]
    Promote(PromoteArgs),

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
(kept in its data folder; built at its first start, or again when the one there cannot be \
used), are noted on stderr.

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

    /// Worktree chats: list them, merge one back safely, bring one up to date, discard, prune
    #[command(
        long_about = "\
The chats that work in a git worktree of their own: started with `paddock send --worktree`, or \
in a project whose isolation is worktree (`paddock project set SLUG --isolation worktree`). Each \
has a branch (paddock/<first 8 of its id> unless named) from the project's HEAD, in a folder \
paddockd owns outside your checkout, so parallel chats never write over each other or over your \
uncommitted work. Its work is everything its worktree holds that its base did not: committed, \
uncommitted and untracked (`paddock git diff --chat SESSION` shows it).

`ls` lists them; `merge` brings one's work into its target after a trial merge that changes \
nothing on a conflict; `rebase` brings one up to date with its target; `discard` removes one's \
worktree and branch (never unmerged work without --force); `prune` removes those whose chat was \
deleted. Archiving or deleting a chat whose worktree holds no work removes it by itself.",
        after_help = "\
Examples:
  paddock send -p web --worktree 'Fix the flaky login test'
  paddock worktree ls
  paddock git diff --chat 7ce589bd
  paddock worktree merge 7ce589bd
  paddock worktree discard 7ce589bd --yes"
    )]
    Worktree {
        #[command(subcommand)]
        action: WorktreeCmd,
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

    /// The hosts this client works with, and whether each answers
    #[command(
        long_about = "\
The hosts this client works with (one daemon each, DESIGN §8), and their state: connected (with \
the daemon's version), or down and why. Every host is asked at once; one that does not answer \
within host_timeout (5 s unless set) is down.

Which hosts: those named with --remote (several times, or PADDOCK_REMOTE=a,b), each a host of \
the client's configuration by name or else an ssh destination; without --remote, the hosts of \
the client's configuration; without those, this machine's daemon alone.

The client's configuration is $XDG_CONFIG_HOME/paddock/client.toml (PADDOCK_CLIENT_CONFIG names \
another; it must then exist):

  host_timeout = 5                  # seconds; PADDOCK_HOST_TIMEOUT wins
  [hosts.laptop]
  local = true                      # this machine's daemon
  [hosts.devbox]
  ssh = \"me@devbox.example.com\"    # what ssh takes (default: the name)
  socket = \"/run/user/1000/paddock/paddockd.sock\"   # optional, the socket there
  paddock = \"~/.cargo/bin/paddock\"  # optional, the paddock program there

With several hosts, the listing commands (ls, project ls, history, search, usage, approvals, \
status, trigger ls) ask every host at once and merge the answers, and notify announces every \
host's chats (trying a lost host again); each --json row says its `host`, and the \
hosts that did not answer are named on stderr (the exit status is non-zero only when none \
answered). A command on one chat finds its host by the session id. A project is HOST:SLUG \
(HOST: alone is that host's root workspace); a command that creates something (send without \
-c, project add, trigger add) needs the host named that way, or --remote HOST.

The TUI (plain `paddock`) shows every host in one tree, each host's projects under its name; a \
host that goes away stays on screen dimmed, with when it was last seen, until the TUI has \
reconnected by itself. History, the inbox, Search, Usage and Triggers list every host.",
        after_help = "\
Examples:
  paddock hosts
  paddock --remote devbox --remote gpubox hosts --json
  paddock ls -A                           every host's chats, each project as HOST:SLUG
  paddock send -p devbox:web 'fix the flaky test'"
    )]
    Hosts(HostsArgs),
}

#[derive(Debug, clap::Args)]
pub struct HostsArgs {
    /// One JSON object per host: name, address, state (connected, down), version, reason
    #[arg(long)]
    pub json: bool,
}
