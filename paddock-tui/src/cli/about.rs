//! The top of `paddock --help`: the one-line and long descriptions and the examples.

pub(super) const ABOUT: &str = "Run and watch many Claude Code chats from the terminal";

pub(super) const LONG_ABOUT: &str = "\
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

pub(super) const EXAMPLES: &str = "\
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
