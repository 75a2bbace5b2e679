#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than the lockfile.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install` (not `npm ci`): the lockfile pins every version, but npm 11 leaves other platforms'
  # optional packages (chDB's native libraries) out of it, which `npm ci` refuses.
  echo "[deps] npm install"
  npm install --no-audit --no-fund
fi
