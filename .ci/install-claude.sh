#!/usr/bin/env bash
# Installs a Claude Code CLI release that the conformance tests drive:
#   bash .ci/install-claude.sh [VERSION]
# VERSION defaults to 2.1.332, the release docs/claude-cli.md was written against; the other
# supported release is 2.1.197 (what npm picks on Node 18/20). Each version goes into its own
# folder, ${PADDOCK_TOOLS_DIR:-$HOME/.cache/paddock-tools}/claude-VERSION. An older copy of
# the default version directly in the tools folder (where this script used to put it) is used
# as it is.
#
# Idempotent: when the installed binary already reports the version, nothing is downloaded.
# Progress goes to stderr; the last line on stdout is the path of a working `claude` binary
# (for PADDOCK_TEST_CLAUDE_BIN).
set -euo pipefail

[[ $# -le 1 ]] || { printf 'usage: %s [VERSION]\n' "$0" >&2; exit 2; }

DEFAULT_VERSION="2.1.332"
VERSION="${1:-$DEFAULT_VERSION}"
PACKAGE="@anthropic-ai/claude-code"
TOOLS_DIR="${PADDOCK_TOOLS_DIR:-$HOME/.cache/paddock-tools}"
DIR="$TOOLS_DIR/claude-$VERSION"

say() { printf 'install-claude: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION must look like 2.1.332, not '$VERSION'"

# Prints the first candidate binary under $1 that runs and reports $VERSION.
#
# `node_modules/.bin/claude` is the package's own entry point; its postinstall step replaces it
# with the native binary. npm may skip install scripts (an `ignore-scripts` policy), and then
# the native binary is still there in the platform package, so that is the fallback.
working_binary() {
  local dir="$1"
  local candidates=("$dir/node_modules/.bin/claude")
  local platform
  for platform in "$(platform_package)" linux-x64 linux-x64-musl linux-arm64 linux-arm64-musl; do
    candidates+=("$dir/node_modules/@anthropic-ai/claude-code-$platform/claude")
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

if bin="$(working_binary "$DIR")"; then
  say "$PACKAGE@$VERSION is already installed in $DIR"
  printf '%s\n' "$bin"
  exit 0
fi
if [[ "$VERSION" == "$DEFAULT_VERSION" ]] && [[ -e "$TOOLS_DIR/node_modules" ]] \
  && bin="$(working_binary "$TOOLS_DIR")"; then
  say "$PACKAGE@$VERSION is already installed in $TOOLS_DIR (the folder older versions of this script used)"
  printf '%s\n' "$bin"
  exit 0
fi

command -v npm >/dev/null || die "npm is not installed; install Node.js (with npm) first"
mkdir -p "$DIR"
say "installing $PACKAGE@$VERSION into $DIR"
# Releases from 2.1.198 on declare `node >= 22`; their native binary runs on older Node too,
# so the engines check must not stop the install (npm only warns unless engine-strict is set).
npm install --no-audit --no-fund --save-exact --engine-strict=false --prefix "$DIR" \
  "$PACKAGE@$VERSION" >&2 \
  || die "npm install of $PACKAGE@$VERSION into $DIR failed (see above)"

bin="$(working_binary "$DIR")" \
  || die "$PACKAGE@$VERSION was installed into $DIR, but no claude binary in it reports version $VERSION"
printf '%s\n' "$bin"
