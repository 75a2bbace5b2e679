#!/usr/bin/env bash
# `npm test`: install what is missing, start the stack if it is not up, migrate, lint, run every test.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash ops/bin/ensure-deps.sh
npm run -s stack -- up
npm run -s migrate
npm run -s lint
# The browser tests drive the built UI.
npm run -s build:web
NODE_OPTIONS="--disable-warning=TimeoutNegativeWarning ${NODE_OPTIONS:-}" npx vitest run "$@"
