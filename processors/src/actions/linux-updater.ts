// The Linux agent updater script. Installed at SERVICE_AGENT_UPDATER_PATH on a host that lacks it; the
// service then runs `<updater> update <git-url> <branch>` and reads `<updater> version` back.
// The agent lives beside the updater's prefix: /usr/local/sbin/watchpost-agent-update keeps it in
// /usr/local/lib/watchpost-agent/ssh-monitor. An agent repository may ship an executable install.sh
// (run from the checkout after each update); the version is the newest tag reachable from the branch.
export const LINUX_UPDATER_SCRIPT = `#!/bin/sh
# watchpost agent updater for ssh-monitor (installed by watchpost when missing).
# usage: watchpost-agent-update update <git-url> <branch> | version
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
    [ "$#" -eq 3 ] || { echo "usage: $0 update <git-url> <branch>" >&2; exit 2; }
    url=$2
    branch=$3
    command -v git >/dev/null 2>&1 || { echo "git is not installed" >&2; exit 4; }
    mkdir -p "$AGENT_DIR"
    rm -rf "$SRC.new"
    git clone --quiet --branch "$branch" --single-branch -- "$url" "$SRC.new"
    rm -rf "$SRC"
    mv "$SRC.new" "$SRC"
    version=$(git -C "$SRC" describe --tags --abbrev=0 2>/dev/null || echo unknown)
    if [ -x "$SRC/install.sh" ]; then (cd "$SRC" && ./install.sh); fi
    printf '%s\\n' "\${version#v}" > "$AGENT_DIR/VERSION.tmp"
    mv "$AGENT_DIR/VERSION.tmp" "$AGENT_DIR/VERSION"
    echo "updated to \${version#v}"
    ;;
  *)
    echo "usage: $0 update <git-url> <branch> | version" >&2
    exit 2
    ;;
esac
`;
