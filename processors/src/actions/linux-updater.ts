// The Linux agent updater script. Installed at SERVICE_AGENT_UPDATER_PATH on a host that lacks it; the
// service then runs `<updater> update <git-url> <ref>` and reads `<updater> version` back. The ref is the
// "branch" setting: a branch (its head at the time the host clones it), a tag, or a full commit id (that
// commit, which must be on one of the repository's branches or tags): a tag or commit pins the update.
// It prints the commit it installed ("(commit <id>)") and keeps it in COMMIT beside VERSION.
// The agent lives beside the updater's prefix: /usr/local/sbin/watchpost-agent-update keeps it in
// /usr/local/lib/watchpost-agent/ssh-monitor. An agent repository may ship an executable install.sh
// (run from the checkout after each update); the version is what the checkout states (version.txt, else
// ssh-monitor's SSH_MONITOR_VERSION, else the newest tag reachable from the branch). An installed updater
// that differs from this one is replaced.
export const LINUX_UPDATER_SCRIPT = `#!/bin/sh
# watchpost agent updater for ssh-monitor (installed by watchpost when missing).
# usage: watchpost-agent-update update <git-url> <branch|tag|commit> | version
set -eu
umask 022
PREFIX=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
AGENT_DIR="$PREFIX/lib/watchpost-agent/ssh-monitor"
SRC="$AGENT_DIR/src"
case "\${1:-}" in
  version)
    if [ -f "$AGENT_DIR/VERSION" ]; then cat "$AGENT_DIR/VERSION"; exit 0; fi
    echo "no agent installed by the updater in $AGENT_DIR" >&2
    exit 3
    ;;
  update)
    [ "$#" -eq 3 ] || { echo "usage: $0 update <git-url> <branch|tag|commit>" >&2; exit 2; }
    url=$2
    ref=$3
    command -v git >/dev/null 2>&1 || { echo "git is not installed" >&2; exit 4; }
    mkdir -p "$AGENT_DIR"
    rm -rf "$SRC.new"
    if printf '%s\\n' "$ref" | grep -Eqx '([0-9a-f]{40}|[0-9a-f]{64})'; then
      # A full commit id: that commit (git clone --branch takes branches and tags only).
      git clone --quiet --no-checkout -- "$url" "$SRC.new"
      git -C "$SRC.new" -c advice.detachedHead=false checkout --quiet --detach "$ref^{commit}"
    else
      git clone --quiet --branch "$ref" --single-branch -- "$url" "$SRC.new"
    fi
    rm -rf "$SRC"
    mv "$SRC.new" "$SRC"
    # The version the agent states (core VERSION_SOURCES): version.txt, else ssh-monitor's
    # SSH_MONITOR_VERSION (read as its Makefile does), else the newest tag.
    version=
    if [ -f "$SRC/version.txt" ]; then
      version=$(head -n 3 "$SRC/version.txt" | sed -e '1s/^\xEF\xBB\xBF//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -m1 . || true)
    fi
    if [ -z "$version" ] && [ -f "$SRC/ssh-monitor" ]; then
      version=$(sed -n 's/^SSH_MONITOR_VERSION="\\(.*\\)".*/\\1/p' "$SRC/ssh-monitor" | head -n 1)
    fi
    [ -n "$version" ] || version=$(git -C "$SRC" describe --tags --abbrev=0 2>/dev/null || echo unknown)
    if [ -x "$SRC/install.sh" ]; then (cd "$SRC" && ./install.sh); fi
    commit=$(git -C "$SRC" rev-parse HEAD)
    printf '%s\\n' "$commit" > "$AGENT_DIR/COMMIT"
    printf '%s\\n' "\${version#v}" > "$AGENT_DIR/VERSION.tmp"
    mv "$AGENT_DIR/VERSION.tmp" "$AGENT_DIR/VERSION"
    echo "updated to \${version#v} (commit $commit)"
    ;;
  *)
    echo "usage: $0 update <git-url> <branch|tag|commit> | version" >&2
    exit 2
    ;;
esac
`;
