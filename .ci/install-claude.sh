#!/usr/bin/env bash
# Installs the Claude Code CLI that the conformance tests drive, pinned to the version
# docs/claude-cli.md was written against, into ${PADDOCK_TOOLS_DIR:-$HOME/.cache/paddock-tools}.
#
# Idempotent: when the installed binary already reports the pinned version, nothing is
# downloaded. Progress goes to stderr; the last line on stdout is the path of a working
# `claude` binary (for PADDOCK_TEST_CLAUDE_BIN).
set -euo pipefail

VERSION="2.1.332"
PACKAGE="@anthropic-ai/claude-code"
DIR="${PADDOCK_TOOLS_DIR:-$HOME/.cache/paddock-tools}"

say() { printf 'install-claude: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Prints the first candidate binary that runs and reports $VERSION.
#
# `node_modules/.bin/claude` is the package's own entry point; its postinstall step replaces it
# with the native binary. npm may skip install scripts (an `ignore-scripts` policy), and then
# the native binary is still there in the platform package, so that is the fallback.
working_binary() {
  local candidates=("$DIR/node_modules/.bin/claude")
  local platform
  for platform in "$(platform_package)" linux-x64 linux-x64-musl linux-arm64 linux-arm64-musl; do
    candidates+=("$DIR/node_modules/@anthropic-ai/claude-code-$platform/claude")
  done
  local bin out
  for bin in "${candidates[@]}"; do
    [[ -x "$bin" ]] || continue
    if out="$("$bin" --version 2>/dev/null)" && [[ "$out" == "$VERSION"* ]]; then
      say "using $bin ($out)"
      printf '%s\n' "$bin"
      return 0
    fi
    say "skipping $bin: \`--version\` printed '${out:-nothing}', not $VERSION"
  done
  return 1
}

# The npm platform package this machine needs, e.g. linux-x64 or linux-arm64-musl.
platform_package() {
  local os arch libc=""
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) os=unknown ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch=unknown ;;
  esac
  if [[ "$os" == linux ]] && ! ldd --version 2>&1 | grep -qi -e glibc -e 'gnu libc'; then
    libc="-musl"
  fi
  printf '%s-%s%s\n' "$os" "$arch" "$libc"
}

if bin="$(working_binary)"; then
  say "$PACKAGE@$VERSION is already installed in $DIR"
  printf '%s\n' "$bin"
  exit 0
fi

command -v npm >/dev/null || die "npm is not installed; install Node.js (with npm) first"
mkdir -p "$DIR"
say "installing $PACKAGE@$VERSION into $DIR"
npm install --no-audit --no-fund --save-exact --prefix "$DIR" "$PACKAGE@$VERSION" >&2 \
  || die "npm install of $PACKAGE@$VERSION into $DIR failed (see above)"

bin="$(working_binary)" \
  || die "$PACKAGE@$VERSION was installed into $DIR, but no claude binary in it reports version $VERSION"
printf '%s\n' "$bin"
