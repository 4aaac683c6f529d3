complete -c paddockd -l socket -d 'The Unix socket to listen on [env: PADDOCK_SOCKET]' -r -F
complete -c paddockd -l config -d 'The config file; when named it must exist [env: PADDOCK_CONFIG]' -r -F
complete -c paddockd -l foreground -d 'Accepted for symmetry with `paddock daemon start --foreground`: paddockd always runs in the foreground'
complete -c paddockd -l log-stderr -d 'Log to stderr instead of the log file'
complete -c paddockd -l check-config -d 'Print the resolved configuration and exit'
complete -c paddockd -s h -l help -d 'Print help (see more with \'--help\')'
complete -c paddockd -s V -l version -d 'Print version'
