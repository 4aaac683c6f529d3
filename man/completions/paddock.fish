# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_paddock_global_optspecs
    string join \n socket= remote= remote-paddock= h/help V/version
end

function __fish_paddock_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_paddock_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_paddock_using_subcommand
    set -l cmd (__fish_paddock_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c paddock -n "__fish_paddock_needs_command" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_needs_command" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_needs_command" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_needs_command" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "daemon" -d 'Start, stop, restart or inspect paddockd'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "project" -d 'Add, list, show, change, remove or promote projects (a project is a directory its agents run in)'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "ls" -d 'List chats in tree order, children under the chat that started them'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "list" -d 'List chats in tree order, children under the chat that started them'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "send" -d 'Send a message: start a new chat, or a turn in an existing one, and stream the reply'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "tail" -d 'Attach to a chat: replay its running turn, then print live frames until it ends'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "cancel" -d 'Interrupt a chat\'s running turn (the chat stays resumable)'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "continue" -d 'Continue a chat whose last turn was cut short, and stream the new turn\'s reply'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "show" -d 'Print a chat\'s transcript, with who injected each machine-added message'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "doctor" -d 'What is missing to run chats (claude, login, data folder, daemon), and how to fix it'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "status" -d 'One line for a status bar: running turns, tool calls waiting for you, unread chats'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "approvals" -d 'List the tool calls waiting for a person in every project, or answer them'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "notify" -d 'Tell this terminal when a chat needs you: desktop notifications and the bell'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "usage" -d 'Tokens, estimated cost and context use, per chat, project and subtree'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "attachment" -d 'Fetch a kept attachment: a file attached to a message, or one an agent showed'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "archive" -d 'Archive chats: hide them from `paddock ls` (`ls --archived` lists them)'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "unarchive" -d 'Bring archived chats back into `paddock ls`'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "star" -d 'Star chats: starred chats are listed first'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "unstar" -d 'Remove the star from chats'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "read" -d 'Mark chats read (seen now), clearing their U flag'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "unread" -d 'Flag chats unread again, as a reminder to come back to them'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "detach" -d 'Draw chats as roots of the tree instead of under their parent (nothing is destroyed)'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "attach" -d 'Undo `paddock detach`: draw chats under their parent again'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "delete" -d 'Delete chats: their transcripts and every flag they had'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "fork" -d 'Copy a chat into a new one, drawn under it; prints the new session id'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "promote" -d 'Move a chat, with the chats under it, to another project (a new one if need be)'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "history" -d 'Recent runs by origin, newest first, and what ran "while you were away"'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "search" -d 'Full-text search across every chat: titles, messages, tool calls and their results'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "trigger" -d 'Schedules (cron, intervals) and hooks that start chats by themselves'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "import" -d 'Adopt the terminal `claude` history of a directory as chats'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "provenance" -d 'Which chat produced a file, from what, and whether it still is what that chat wrote'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "blame" -d 'Which chat and turn last wrote each line of a file (blame by chat)'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "files" -d 'The files a chat read and wrote, turn by turn, and whether each is still what it wrote'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "ls-files" -d 'A project\'s files, one directory at a time (any file, touched by a chat or not)'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "git" -d 'Git status, diff, commit and push of a project, or of the files a chat or a turn wrote'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "worktree" -d 'Worktree chats: list them, merge one back safely, bring one up to date, discard, prune'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "proxy" -d 'Bridge stdin and stdout to paddockd\'s socket: what `paddock --remote HOST` runs on HOST'
complete -c paddock -n "__fish_paddock_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -f -a "start" -d 'Start paddockd in the background, if it is not running already'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -f -a "stop" -d 'Stop paddockd (running turns are interrupted; their chats stay resumable)'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -f -a "status" -d 'Show whether paddockd runs, its version, and what it is doing; exits 1 if it is not running'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -f -a "restart" -d 'Stop paddockd and start it again (also one that speaks another protocol version)'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and not __fish_seen_subcommand_from start stop status restart help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from start" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from start" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from start" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from start" -l foreground -d 'Run paddockd in this terminal instead (replacing this process), to watch its output'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from stop" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from stop" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from stop" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from stop" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from status" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from status" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from status" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from status" -l json -d 'Print the status as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from restart" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from restart" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from restart" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from restart" -l foreground -d 'Run the new paddockd in this terminal instead (replacing this process)'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from restart" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from restart" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start paddockd in the background, if it is not running already'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop paddockd (running turns are interrupted; their chats stay resumable)'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show whether paddockd runs, its version, and what it is doing; exits 1 if it is not running'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "restart" -d 'Stop paddockd and start it again (also one that speaks another protocol version)'
complete -c paddock -n "__fish_paddock_using_subcommand daemon; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "add" -d 'Add a project: a folder in the data directory, a directory of yours (--path), or a clone of a repository (--repo)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "ls" -d 'List projects: slug and directory; the root workspace shows as `(root)`'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "list" -d 'List projects: slug and directory; the root workspace shows as `(root)`'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "show" -d 'Show a project: its settings, chat counts, and the OVERVIEW.md and CHANGELOG.md the sweeper keeps'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "set" -d 'Change a project\'s settings (kept in its project.toml, comments and all)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "rm" -d 'Remove a project; refused while its turns run unless --force'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "delete" -d 'Remove a project; refused while its turns run unless --force'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "promote" -d 'Make a notebook project repo-backed: clone a repository into it and work there'
complete -c paddock -n "__fish_paddock_using_subcommand project; and not __fish_seen_subcommand_from add ls list show set rm delete promote help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l path -d 'The directory its agents run in [default: a new folder in the data directory]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l repo -d 'A repository to clone; the project\'s agents then run in the clone' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l name -d 'A display name' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l summary -d 'One line saying what the project is' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l area -d 'The area (group) the project is filed under' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l status -d 'Its status' -r -f -a "idea\t''
active\t''
paused\t''
blocked\t''
done\t''
abandoned\t''"
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from ls" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from ls" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from ls" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from ls" -l json -d 'Print one JSON array of {slug, path, createdAt, and the settings that are set: name, summary, area, status, repo, model, driveMode, maxSpawnDepth, allowedTools, reach} (the root workspace\'s slug is "")'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from list" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from list" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from list" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from list" -l json -d 'Print one JSON array of {slug, path, createdAt, and the settings that are set: name, summary, area, status, repo, model, driveMode, maxSpawnDepth, allowedTools, reach} (the root workspace\'s slug is "")'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from show" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from show" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from show" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON object (see above)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l name -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l summary -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l area -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l status -r -f -a "idea\t''
active\t''
paused\t''
blocked\t''
done\t''
abandoned\t''"
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l model -d 'The model for chats that do not choose one' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l drive-mode -d 'session: one `claude` kept per chat between turns; batch: one per turn' -r -f -a "session\t''
batch\t''"
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l max-spawn-depth -d 'How deep chats may spawn chats that get the agent tools (0-8)' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l isolation -d 'Where new chats work: worktree (each in a git worktree of its own) or none (the project\'s directory)' -r -f -a "worktree\t''
none\t''"
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l unset -d 'Clear a setting (repeatable)' -r -f -a "name\t''
summary\t''
area\t''
status\t''
model\t''
drive-mode\t''
max-spawn-depth\t''
isolation\t''"
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l allow -d 'Add a tool rule to allowed_tools: `Read`, `Bash(npm test:*)`, `Edit(src/**)` (repeatable; the syntax is in `paddock approvals --help`)' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l disallow -d 'Remove a tool rule from allowed_tools, as `project show` lists it (repeatable)' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l reach -d 'Let this project\'s chats act on project SLUG with their paddock tools (\'\' the root workspace, \'*\' every project; repeatable)' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l unreach -d 'Take project SLUG out of reach, as `project show` lists it (repeatable)' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -l force -d 'Interrupt the project\'s running turns instead of refusing'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -l delete-files -d 'Delete the project\'s data folder instead of moving it to the trash'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -l trash -d 'Move the project\'s data folder to the trash (the default for a directory of yours)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -l json -d 'Print one JSON object (see above)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from rm" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -l force -d 'Interrupt the project\'s running turns instead of refusing'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -l delete-files -d 'Delete the project\'s data folder instead of moving it to the trash'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -l trash -d 'Move the project\'s data folder to the trash (the default for a directory of yours)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -l json -d 'Print one JSON object (see above)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from promote" -l repo -d 'The repository to clone (as for `project add --repo`)' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from promote" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from promote" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from promote" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from promote" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a project: a folder in the data directory, a directory of yours (--path), or a clone of a repository (--repo)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "ls" -d 'List projects: slug and directory; the root workspace shows as `(root)`'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a project: its settings, chat counts, and the OVERVIEW.md and CHANGELOG.md the sweeper keeps'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "set" -d 'Change a project\'s settings (kept in its project.toml, comments and all)'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Remove a project; refused while its turns run unless --force'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Make a notebook project repo-backed: clone a repository into it and work there'
complete -c paddock -n "__fish_paddock_using_subcommand project; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand ls" -s p -l project -d 'The project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand ls" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand ls" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand ls" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand ls" -l archived -d 'List only archived chats'
complete -c paddock -n "__fish_paddock_using_subcommand ls" -l all -d 'List active and archived chats'
complete -c paddock -n "__fish_paddock_using_subcommand ls" -s A -l all-projects -d 'Every project\'s chats, project by project (the root workspace first)'
complete -c paddock -n "__fish_paddock_using_subcommand ls" -l json -d 'Print one JSON array of chat objects'
complete -c paddock -n "__fish_paddock_using_subcommand ls" -l full-titles -d 'Each chat\'s whole title: without it a title over 200 characters, such as a long pasted first prompt, is cut there and ends in "…" (with --json), and on a terminal each title is cut to fit the row in its width'
complete -c paddock -n "__fish_paddock_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand ls" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand list" -s p -l project -d 'The project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand list" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand list" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand list" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand list" -l archived -d 'List only archived chats'
complete -c paddock -n "__fish_paddock_using_subcommand list" -l all -d 'List active and archived chats'
complete -c paddock -n "__fish_paddock_using_subcommand list" -s A -l all-projects -d 'Every project\'s chats, project by project (the root workspace first)'
complete -c paddock -n "__fish_paddock_using_subcommand list" -l json -d 'Print one JSON array of chat objects'
complete -c paddock -n "__fish_paddock_using_subcommand list" -l full-titles -d 'Each chat\'s whole title: without it a title over 200 characters, such as a long pasted first prompt, is cut there and ends in "…" (with --json), and on a terminal each title is cut to fit the row in its width'
complete -c paddock -n "__fish_paddock_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand list" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand send" -s p -l project -d 'The project of a new chat [default: the root workspace; with -c, the chat\'s own project]' -r
complete -c paddock -n "__fish_paddock_using_subcommand send" -s c -l session -d 'Continue this chat instead of starting a new one' -r
complete -c paddock -n "__fish_paddock_using_subcommand send" -l model -d 'The model for a new chat (e.g. `sonnet`, `opus`) [default: the daemon\'s]' -r
complete -c paddock -n "__fish_paddock_using_subcommand send" -l branch -d 'The worktree\'s branch [default: paddock/<first 8 of the session id>] (implies --worktree)' -r
complete -c paddock -n "__fish_paddock_using_subcommand send" -l base -d 'What the worktree starts from: a commit, branch or tag [default: the project\'s HEAD] (implies --worktree)' -r
complete -c paddock -n "__fish_paddock_using_subcommand send" -s a -l attach -d 'Attach a file to the message (repeatable): images and PDFs reach the model as they are, other files it reads; the daemon keeps a copy (limits: attachments_* in its config)' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand send" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand send" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand send" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand send" -l detach -d 'Return once the turn is accepted, printing the session id to stdout'
complete -c paddock -n "__fish_paddock_using_subcommand send" -l queue -d 'With -c, when the chat is running a turn: queue the message as its follow-up, sent when that turn ends well (after a queued one already there; every client shows it), then stream the follow-up\'s reply. Without it a running chat refuses the message'
complete -c paddock -n "__fish_paddock_using_subcommand send" -l preload -d 'Start the new chat from the project\'s curated context: its OVERVIEW.md and the end of its CHANGELOG.md go before the message (when it has an overview)'
complete -c paddock -n "__fish_paddock_using_subcommand send" -l worktree -d 'Start the new chat in a git worktree of its own: a folder paddockd owns, on a branch of its own from the project\'s HEAD, so its edits never meet another chat\'s (the project must be in a git repository with a commit); the default when the project\'s isolation is worktree (`paddock project set SLUG --isolation worktree`)'
complete -c paddock -n "__fish_paddock_using_subcommand send" -l no-worktree -d 'Start the new chat in the project\'s directory, though its isolation is worktree'
complete -c paddock -n "__fish_paddock_using_subcommand send" -l json -d 'Print every frame of the turn as one JSON line instead of the reply text (with --detach: the accepted turn, {projectSlug, sessionId, jobId, queued})'
complete -c paddock -n "__fish_paddock_using_subcommand send" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand send" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand tail" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand tail" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand tail" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand tail" -l json -d 'Print every frame as one JSON line'
complete -c paddock -n "__fish_paddock_using_subcommand tail" -l wait -d 'When nothing is running or replayable, wait for the chat\'s next turn and follow it (by default tail says so and exits)'
complete -c paddock -n "__fish_paddock_using_subcommand tail" -l no-wait -d 'The default (return at once when nothing is running); kept so older scripts still work'
complete -c paddock -n "__fish_paddock_using_subcommand tail" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand tail" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand cancel" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand cancel" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand cancel" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand cancel" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand cancel" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand continue" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand continue" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand continue" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand continue" -l detach -d 'Return once the turn is accepted, printing the session id to stdout'
complete -c paddock -n "__fish_paddock_using_subcommand continue" -l json -d 'Print every frame of the turn as one JSON line instead of the reply text (with --detach: the accepted turn, {projectSlug, sessionId, jobId, queued})'
complete -c paddock -n "__fish_paddock_using_subcommand continue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand continue" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand show" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand show" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand show" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand show" -l json -d 'Print the transcript as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand show" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand doctor" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand doctor" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand doctor" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand doctor" -l json -d 'Print the checks as one JSON object (see the description for its shape)'
complete -c paddock -n "__fish_paddock_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand status" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand status" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand status" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand status" -l tmux -d 'tmux colour codes, for status-right'
complete -c paddock -n "__fish_paddock_using_subcommand status" -l json -d 'Print one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand status" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -l json -d 'Print one JSON array of the pending approvals'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -f -a "allow" -d 'Run the calls once'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -f -a "deny" -d 'Refuse the calls; the agent is told (with --message, why)'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -f -a "always" -d 'Run the calls, and add the rule each one shows to its project\'s allowed tools'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and not __fish_seen_subcommand_from allow deny always help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from allow" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from allow" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from allow" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from allow" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from allow" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from deny" -l message -d 'What the agent is told' -r
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from deny" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from deny" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from deny" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from deny" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from deny" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from always" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from always" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from always" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from always" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from always" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from help" -f -a "allow" -d 'Run the calls once'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from help" -f -a "deny" -d 'Refuse the calls; the agent is told (with --message, why)'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from help" -f -a "always" -d 'Run the calls, and add the rule each one shows to its project\'s allowed tools'
complete -c paddock -n "__fish_paddock_using_subcommand approvals; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand notify" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand notify" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand notify" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand notify" -l once -d 'Exit after the first announcement (for scripts: wait until something needs you)'
complete -c paddock -n "__fish_paddock_using_subcommand notify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand notify" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand usage" -s p -l project -d 'Only this project\'s chats [default: every project]' -r
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l subtree -d 'Only this chat and the chats under it in the tree' -r
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l top -d 'How many of the costliest chats to list' -r
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l archived -d 'Only archived chats'
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l all -d 'Active and archived chats'
complete -c paddock -n "__fish_paddock_using_subcommand usage" -l json -d 'Print the report as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand usage" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand attachment" -s o -l output -d 'Write to this file instead of stdout' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand attachment" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand attachment" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand attachment" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand attachment" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand attachment" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand archive" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand archive" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand archive" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand archive" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand archive" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand archive" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand unarchive" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand unarchive" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand unarchive" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand unarchive" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand unarchive" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand unarchive" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand star" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand star" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand star" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand star" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand star" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand star" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand unstar" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand unstar" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand unstar" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand unstar" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand unstar" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand unstar" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand read" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand read" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand read" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand read" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand read" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand unread" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand unread" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand unread" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand unread" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand unread" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand unread" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand detach" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand detach" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand detach" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand detach" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand detach" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand detach" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand attach" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand attach" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand attach" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand attach" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand attach" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand attach" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand delete" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand delete" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand delete" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand delete" -l subtree -d 'Also every chat below each named one (its children, their children...), in any project'
complete -c paddock -n "__fish_paddock_using_subcommand delete" -s y -l yes -d 'Do not ask for confirmation (required when stdin is not a terminal)'
complete -c paddock -n "__fish_paddock_using_subcommand delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand delete" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand fork" -l name -d 'The fork\'s title [default: "fork of" and the chat\'s title]' -r
complete -c paddock -n "__fish_paddock_using_subcommand fork" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand fork" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand fork" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand fork" -l json -d 'Print {projectSlug, sessionId} of the new chat as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand fork" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand fork" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand promote" -l to -d 'The project to move it to: a slug (made if no project has it), \'\' for the root workspace' -r
complete -c paddock -n "__fish_paddock_using_subcommand promote" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand promote" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand promote" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand promote" -l json -d 'Print {fromProject, toProject, sessionIds} as one JSON object (createdProject: true when it made the project)'
complete -c paddock -n "__fish_paddock_using_subcommand promote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand promote" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand history" -s p -l project -d 'Only this project\'s runs [default: every project]' -r
complete -c paddock -n "__fish_paddock_using_subcommand history" -l limit -d 'At most this many runs, newest first [default: 100; at most 500]' -r
complete -c paddock -n "__fish_paddock_using_subcommand history" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand history" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand history" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand history" -l unattended -d 'Only the runs that ran without you: scheduled, spawned and hook runs'
complete -c paddock -n "__fish_paddock_using_subcommand history" -l json -d 'Print the history as one JSON object (never marks the runs seen)'
complete -c paddock -n "__fish_paddock_using_subcommand history" -l keep-unseen -d 'Leave the new runs marked new, so "while you were away" shows again next time'
complete -c paddock -n "__fish_paddock_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand history" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand search" -s p -l project -d 'Only this project\'s chats [default: every project]' -r
complete -c paddock -n "__fish_paddock_using_subcommand search" -l limit -d 'At most this many chats, best first [default: 50; at most 500]' -r
complete -c paddock -n "__fish_paddock_using_subcommand search" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand search" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand search" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand search" -l archived -d 'Archived chats too'
complete -c paddock -n "__fish_paddock_using_subcommand search" -l json -d 'Print the daemon\'s reply as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand search" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -f -a "ls" -d 'List schedules and hooks with their next and last fire'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -f -a "list" -d 'List schedules and hooks with their next and last fire'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -f -a "add" -d 'Add a schedule or a hook, or replace the one of that name'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -f -a "rm" -d 'Remove a trigger (the chats it started stay)'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -f -a "remove" -d 'Remove a trigger (the chats it started stay)'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -f -a "fire" -d 'Fire a trigger now, out of turn; prints the session id of the chat it ran in'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and not __fish_seen_subcommand_from ls list add rm remove fire help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from ls" -s p -l project -d 'Only this project\'s triggers [default: every project]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from ls" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from ls" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from ls" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from ls" -l json -d 'Print the daemon\'s reply as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from list" -s p -l project -d 'Only this project\'s triggers [default: every project]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from list" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from list" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from list" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from list" -l json -d 'Print the daemon\'s reply as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -s p -l project -d 'The project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l cron -d 'A schedule: a five-field cron expression, minute hour day-of-month month day-of-week (quote it: `--cron \'0 2 * * 1-5\'`)' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l tz -d 'The cron\'s time zone, an IANA name (e.g. `Europe/Berlin`) [default: UTC, not your local time zone]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l every -d 'A schedule: an interval instead of cron, a whole number and a unit (s, m, h, d): `30s`, `15m`, `2h`, `1d`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l on -d 'A hook: the event that fires it' -r -f -a "turn_completed\t'A turn in one of the project\'s chats completed'
turn_failed\t'A turn in one of the project\'s chats failed'
child_finished\t'A chat spawned by another chat finished a turn'
file_changed\t'A file under the project\'s directory changed (see --path, --debounce)'
manual\t'Only `paddock trigger fire` fires it (a webhook for scripts)'
archived\t'One of the project\'s chats was archived (by you or by an agent)'"
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l path -d 'With `--on file_changed`: only changes matching this glob, relative to the project\'s directory (repeatable) [default: any file]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l debounce -d 'With `--on file_changed`: seconds without changes before it fires, at most a day [default: 5]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l prompt -d 'What each fire tells the chat (`-` reads it from stdin)' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l prompt-file -d 'Read the prompt from FILE (`-`: stdin)' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l missed -d 'A schedule: what to do about fires missed while paddockd was not running [default: skip]' -r -f -a "skip\t'Drop them'
run_once\t'Fire once when paddockd starts, however many were missed'"
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l model -d 'The model of the chats it starts (e.g. `sonnet`, `haiku`) [default: the daemon\'s]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l approval-timeout -d 'How long a tool call of its runs waits in the approvals inbox before it is denied; 0 waits for you [default: paddockd\'s approval_timeout_secs]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l resume -d 'Continue the one chat this trigger owns on every fire, instead of a new chat each time'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l disabled -d 'Save it switched off: it does not fire by itself (`paddock trigger fire` still fires it)'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -l json -d 'Print the daemon\'s reply (the saved trigger) as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from rm" -s p -l project -d 'Its project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from rm" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from rm" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from rm" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from rm" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from remove" -s p -l project -d 'Its project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from remove" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from remove" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from remove" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -s p -l project -d 'Its project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -l message -d 'Tell the chat this instead of the trigger\'s prompt, for this fire only (`-`: stdin)' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -l json -d 'Print the daemon\'s reply as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from fire" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from help" -f -a "ls" -d 'List schedules and hooks with their next and last fire'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a schedule or a hook, or replace the one of that name'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Remove a trigger (the chats it started stay)'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from help" -f -a "fire" -d 'Fire a trigger now, out of turn; prints the session id of the chat it ran in'
complete -c paddock -n "__fish_paddock_using_subcommand trigger; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand import" -s p -l project -d 'The project the chats join [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand import" -l path -d 'The directory whose `claude` sessions to adopt [default: the project\'s directory]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand import" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand import" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand import" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand import" -l dry-run -d 'Say what would be adopted and skipped; change nothing'
complete -c paddock -n "__fish_paddock_using_subcommand import" -l json -d 'Print the outcome as one JSON object, skipped sessions included'
complete -c paddock -n "__fish_paddock_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand import" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand provenance" -s p -l project -d 'The project [default: the one whose directory holds FILE]; FILE is then relative to its directory' -r
complete -c paddock -n "__fish_paddock_using_subcommand provenance" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand provenance" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand provenance" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand provenance" -l json -d 'Print the provenance as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand provenance" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand provenance" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand blame" -s p -l project -d 'The project [default: the one whose directory holds FILE]; FILE is then relative to its directory' -r
complete -c paddock -n "__fish_paddock_using_subcommand blame" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand blame" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand blame" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand blame" -l json -d 'Print the blame as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand blame" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand blame" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand files" -l turn -d 'Only this turn (its job id, as `paddock history --json` or `paddock files --json` give it)' -r
complete -c paddock -n "__fish_paddock_using_subcommand files" -s p -l project -d 'The chat\'s project [default: found from the chat]' -r
complete -c paddock -n "__fish_paddock_using_subcommand files" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand files" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand files" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand files" -l json -d 'Print the files as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand files" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand files" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -s p -l project -d 'The project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -l limit -d 'At most this many entries (default and cap 2000)' -r
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -s a -l all -d 'Also list names starting with a dot (.git among them)'
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -l json -d 'Print the listing as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand ls-files" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -f -a "status" -d 'The branch, how far it is from its upstream, and the changed files'
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -f -a "diff" -d 'The diff of the changes against HEAD, untracked files shown as added'
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -f -a "commit" -d 'Commit the scope\'s changed files (only those; other changes stay as they are)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -f -a "push" -d 'Push the branch to its upstream (the first time, to origin, which becomes the upstream)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and not __fish_seen_subcommand_from status diff commit push help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -s p -l project -d 'The project [default: the chat\'s, with --chat or --turn; else the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -l chat -d 'Only the files this chat\'s tool calls wrote' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -l turn -d 'Only the files one turn wrote: the chat\'s session id and the turn\'s job id' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -l subtree -d 'With --chat: also the files of every chat below it (its children, their children...)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -l json -d 'Print the status as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -s p -l project -d 'The project [default: the chat\'s, with --chat or --turn; else the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -l chat -d 'Only the files this chat\'s tool calls wrote' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -l turn -d 'Only the files one turn wrote: the chat\'s session id and the turn\'s job id' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -l subtree -d 'With --chat: also the files of every chat below it (its children, their children...)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -l json -d 'Print the diff and what it covers as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from diff" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -s p -l project -d 'The project [default: the chat\'s, with --chat or --turn; else the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l chat -d 'Only the files this chat\'s tool calls wrote' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l turn -d 'Only the files one turn wrote: the chat\'s session id and the turn\'s job id' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -s m -l message -d 'The commit message' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l subtree -d 'With --chat: also the files of every chat below it (its children, their children...)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l push -d 'Then push the branch to its upstream, as `paddock git push` does'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -l json -d 'Print the new commit as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from commit" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -s p -l project -d 'The project [default: the root workspace]' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -l data-root -d 'Push the data directory\'s own repository (where paddockd commits its files) instead'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -l json -d 'Print what was pushed as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from push" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from help" -f -a "status" -d 'The branch, how far it is from its upstream, and the changed files'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from help" -f -a "diff" -d 'The diff of the changes against HEAD, untracked files shown as added'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from help" -f -a "commit" -d 'Commit the scope\'s changed files (only those; other changes stay as they are)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from help" -f -a "push" -d 'Push the branch to its upstream (the first time, to origin, which becomes the upstream)'
complete -c paddock -n "__fish_paddock_using_subcommand git; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -f -a "ls" -d 'The worktree chats: branch, target, commits ahead and behind, changed files'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -f -a "merge" -d 'Bring a worktree chat\'s work into its target, safely (tried first; a conflict changes nothing)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -f -a "rebase" -d 'Bring a worktree chat up to date with its target (a rebase; a conflict changes nothing)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -f -a "discard" -d 'Remove a worktree chat\'s worktree and branch (asks first; never loses unmerged work silently)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -f -a "prune" -d 'Remove the worktrees of deleted chats that hold no unmerged work'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and not __fish_seen_subcommand_from ls merge rebase discard prune help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -s p -l project -d 'Only this project\'s [default: every project\'s]' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -l orphans -d 'Only the worktrees whose chat was deleted'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -l json -d 'Print the list as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from ls" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -s m -l message -d 'The commit\'s message [default: names the chat, its branch and its title]' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -l squash -d 'One commit with the work\'s changes instead of a merge commit'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -l json -d 'Print the merge as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from merge" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from rebase" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from rebase" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from rebase" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from rebase" -l json -d 'Print the result as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from rebase" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from rebase" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -l force -d 'Also when its branch holds work its target lacks (that work is lost)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -s y -l yes -d 'Do not ask first (what a script passes)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -l json -d 'Print what was removed as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from discard" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from prune" -s p -l project -d 'Only this project\'s [default: every project\'s]' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from prune" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from prune" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from prune" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from prune" -l json -d 'Print what was removed and kept as one JSON object'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from prune" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "ls" -d 'The worktree chats: branch, target, commits ahead and behind, changed files'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Bring a worktree chat\'s work into its target, safely (tried first; a conflict changes nothing)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "rebase" -d 'Bring a worktree chat up to date with its target (a rebase; a conflict changes nothing)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "discard" -d 'Remove a worktree chat\'s worktree and branch (asks first; never loses unmerged work silently)'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Remove the worktrees of deleted chats that hold no unmerged work'
complete -c paddock -n "__fish_paddock_using_subcommand worktree; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand proxy" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET] [default: $XDG_RUNTIME_DIR/paddock/paddockd.sock, else /tmp/paddock-$UID/paddockd.sock]; with --remote, the socket on HOST [default: HOST\'s]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand proxy" -l remote -d 'Reach the paddockd on HOST through ssh (`ssh HOST paddock proxy`) instead of this machine\'s; HOST is anything ssh takes: `devbox`, `me@devbox.example.com`' -r
complete -c paddock -n "__fish_paddock_using_subcommand proxy" -l remote-paddock -d 'With --remote: the paddock program on HOST; `~/` is HOST\'s home [default: paddock]' -r -F
complete -c paddock -n "__fish_paddock_using_subcommand proxy" -l no-start -d 'Bridge only to a daemon that runs already; never start one (what a TUI whose daemon was stopped on purpose uses to look for a new one)'
complete -c paddock -n "__fish_paddock_using_subcommand proxy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddock -n "__fish_paddock_using_subcommand proxy" -s V -l version -d 'Print version'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "daemon" -d 'Start, stop, restart or inspect paddockd'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "project" -d 'Add, list, show, change, remove or promote projects (a project is a directory its agents run in)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "ls" -d 'List chats in tree order, children under the chat that started them'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "send" -d 'Send a message: start a new chat, or a turn in an existing one, and stream the reply'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "tail" -d 'Attach to a chat: replay its running turn, then print live frames until it ends'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "cancel" -d 'Interrupt a chat\'s running turn (the chat stays resumable)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "continue" -d 'Continue a chat whose last turn was cut short, and stream the new turn\'s reply'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "show" -d 'Print a chat\'s transcript, with who injected each machine-added message'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "doctor" -d 'What is missing to run chats (claude, login, data folder, daemon), and how to fix it'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "status" -d 'One line for a status bar: running turns, tool calls waiting for you, unread chats'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "approvals" -d 'List the tool calls waiting for a person in every project, or answer them'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "notify" -d 'Tell this terminal when a chat needs you: desktop notifications and the bell'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "usage" -d 'Tokens, estimated cost and context use, per chat, project and subtree'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "attachment" -d 'Fetch a kept attachment: a file attached to a message, or one an agent showed'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "archive" -d 'Archive chats: hide them from `paddock ls` (`ls --archived` lists them)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "unarchive" -d 'Bring archived chats back into `paddock ls`'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "star" -d 'Star chats: starred chats are listed first'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "unstar" -d 'Remove the star from chats'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "read" -d 'Mark chats read (seen now), clearing their U flag'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "unread" -d 'Flag chats unread again, as a reminder to come back to them'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "detach" -d 'Draw chats as roots of the tree instead of under their parent (nothing is destroyed)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "attach" -d 'Undo `paddock detach`: draw chats under their parent again'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "delete" -d 'Delete chats: their transcripts and every flag they had'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "fork" -d 'Copy a chat into a new one, drawn under it; prints the new session id'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "promote" -d 'Move a chat, with the chats under it, to another project (a new one if need be)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "history" -d 'Recent runs by origin, newest first, and what ran "while you were away"'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "search" -d 'Full-text search across every chat: titles, messages, tool calls and their results'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "trigger" -d 'Schedules (cron, intervals) and hooks that start chats by themselves'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "import" -d 'Adopt the terminal `claude` history of a directory as chats'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "provenance" -d 'Which chat produced a file, from what, and whether it still is what that chat wrote'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "blame" -d 'Which chat and turn last wrote each line of a file (blame by chat)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "files" -d 'The files a chat read and wrote, turn by turn, and whether each is still what it wrote'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "ls-files" -d 'A project\'s files, one directory at a time (any file, touched by a chat or not)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "git" -d 'Git status, diff, commit and push of a project, or of the files a chat or a turn wrote'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "worktree" -d 'Worktree chats: list them, merge one back safely, bring one up to date, discard, prune'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "proxy" -d 'Bridge stdin and stdout to paddockd\'s socket: what `paddock --remote HOST` runs on HOST'
complete -c paddock -n "__fish_paddock_using_subcommand help; and not __fish_seen_subcommand_from daemon project ls send tail cancel continue show doctor status approvals notify usage attachment archive unarchive star unstar read unread detach attach delete fork promote history search trigger import provenance blame files ls-files git worktree proxy help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "start" -d 'Start paddockd in the background, if it is not running already'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "stop" -d 'Stop paddockd (running turns are interrupted; their chats stay resumable)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "status" -d 'Show whether paddockd runs, its version, and what it is doing; exits 1 if it is not running'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from daemon" -f -a "restart" -d 'Stop paddockd and start it again (also one that speaks another protocol version)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "add" -d 'Add a project: a folder in the data directory, a directory of yours (--path), or a clone of a repository (--repo)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "ls" -d 'List projects: slug and directory; the root workspace shows as `(root)`'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "show" -d 'Show a project: its settings, chat counts, and the OVERVIEW.md and CHANGELOG.md the sweeper keeps'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "set" -d 'Change a project\'s settings (kept in its project.toml, comments and all)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "rm" -d 'Remove a project; refused while its turns run unless --force'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from project" -f -a "promote" -d 'Make a notebook project repo-backed: clone a repository into it and work there'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from approvals" -f -a "allow" -d 'Run the calls once'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from approvals" -f -a "deny" -d 'Refuse the calls; the agent is told (with --message, why)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from approvals" -f -a "always" -d 'Run the calls, and add the rule each one shows to its project\'s allowed tools'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from trigger" -f -a "ls" -d 'List schedules and hooks with their next and last fire'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from trigger" -f -a "add" -d 'Add a schedule or a hook, or replace the one of that name'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from trigger" -f -a "rm" -d 'Remove a trigger (the chats it started stay)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from trigger" -f -a "fire" -d 'Fire a trigger now, out of turn; prints the session id of the chat it ran in'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from git" -f -a "status" -d 'The branch, how far it is from its upstream, and the changed files'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from git" -f -a "diff" -d 'The diff of the changes against HEAD, untracked files shown as added'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from git" -f -a "commit" -d 'Commit the scope\'s changed files (only those; other changes stay as they are)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from git" -f -a "push" -d 'Push the branch to its upstream (the first time, to origin, which becomes the upstream)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "ls" -d 'The worktree chats: branch, target, commits ahead and behind, changed files'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "merge" -d 'Bring a worktree chat\'s work into its target, safely (tried first; a conflict changes nothing)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "rebase" -d 'Bring a worktree chat up to date with its target (a rebase; a conflict changes nothing)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "discard" -d 'Remove a worktree chat\'s worktree and branch (asks first; never loses unmerged work silently)'
complete -c paddock -n "__fish_paddock_using_subcommand help; and __fish_seen_subcommand_from worktree" -f -a "prune" -d 'Remove the worktrees of deleted chats that hold no unmerged work'
