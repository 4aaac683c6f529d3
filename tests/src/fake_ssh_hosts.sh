#!/bin/sh
# A stand-in for ssh over several hosts on one machine (tests/src/fake_hosts.rs, and the
# bench's hosts part): the remote words run as sshd would run them, with the host's own socket,
# data, log and configuration under $FAKE_HOSTS/HOST.
# Usage as ssh's: [-T] [-o OPTION]... HOST WORD...
while [ $# -gt 0 ]; do
  case "$1" in
    -o) shift; [ $# -gt 0 ] && shift ;;
    -*) shift ;;
    *) break ;;
  esac
done
host="$1"; shift
case "$host" in
  hang*) exec sleep 600 ;;
  refuse*) echo "ssh: connect to host $host port 22: Connection refused" >&2; exit 255 ;;
  old*)
    # Another paddock's daemon there: hello is answered as one of another protocol answers.
    read -r hello
    printf '%s\n' '{"type":"response","id":1,"error":{"code":"protocol_mismatch","message":"paddockd 9.0.0 speaks protocol 999","mismatch":{"daemonProtocol":999,"daemonVersion":"9.0.0","pid":1,"runningTurns":0}}}'
    exec cat > /dev/null ;;
esac
d="$FAKE_HOSTS/$host"
mkdir -p "$d"
# A host whose sshd is gone for now (the test made it so).
[ -e "$d/refuse" ] && { echo "ssh: connect to host $host port 22: Connection refused" >&2; exit 255; }
# As with a real ssh, the client's environment does not reach the far side's choice of hosts.
unset PADDOCK_REMOTE
export PADDOCK_SOCKET="$d/run/paddockd.sock" PADDOCK_DATA_DIR="$d/data" PADDOCK_LOG="$d/paddockd.log" PADDOCK_HOST_CLAUDE_HOME="$d/host-claude" XDG_CONFIG_HOME="$d/config"
exec /bin/sh -c "$*"
