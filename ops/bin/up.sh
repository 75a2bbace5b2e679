#!/usr/bin/env bash
# `npm run up`: install dependencies, start the local stack, migrate, build the web UI, serve role `all` on :8080.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash ops/bin/ensure-deps.sh
npm run -s stack -- up
npm run -s migrate
npm run -s build:web
exec npm run -s start -- "${SERVICE_ROLE:-all}"
