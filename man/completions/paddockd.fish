# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_paddockd_global_optspecs
    string join \n socket= config= foreground log-stderr check-config h/help V/version
end

function __fish_paddockd_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_paddockd_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_paddockd_using_subcommand
    set -l cmd (__fish_paddockd_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c paddockd -n "__fish_paddockd_needs_command" -l socket -d 'The Unix socket to listen on [env: PADDOCK_SOCKET]' -r -F
complete -c paddockd -n "__fish_paddockd_needs_command" -l config -d 'The config file; when named it must exist [env: PADDOCK_CONFIG]' -r -F
complete -c paddockd -n "__fish_paddockd_needs_command" -l foreground -d 'Accepted for symmetry with `paddock daemon start --foreground`: paddockd always runs in the foreground'
complete -c paddockd -n "__fish_paddockd_needs_command" -l log-stderr -d 'Log to stderr instead of the log file'
complete -c paddockd -n "__fish_paddockd_needs_command" -l check-config -d 'Print the resolved configuration and exit'
complete -c paddockd -n "__fish_paddockd_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddockd -n "__fish_paddockd_needs_command" -s V -l version -d 'Print version'
complete -c paddockd -n "__fish_paddockd_needs_command" -f -a "mcp" -d 'The MCP bridge paddockd gives its agents; not for people'
complete -c paddockd -n "__fish_paddockd_needs_command" -f -a "info" -d 'What a daemon started now would see; for `paddock doctor` when none is running'
complete -c paddockd -n "__fish_paddockd_using_subcommand mcp" -l server -d 'The MCP server to serve: paddock_manage (self-management) or paddock (send_file)' -r
complete -c paddockd -n "__fish_paddockd_using_subcommand mcp" -l socket -d 'The daemon\'s socket [env: PADDOCK_SOCKET]' -r -F
complete -c paddockd -n "__fish_paddockd_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddockd -n "__fish_paddockd_using_subcommand info" -l socket -d 'The socket a daemon would listen on [env: PADDOCK_SOCKET]' -r -F
complete -c paddockd -n "__fish_paddockd_using_subcommand info" -s h -l help -d 'Print help (see more with \'--help\')'
