#!/usr/bin/env bash
# `npm test`: install what is missing, start the stack if it is not up, migrate, lint, run every test.
# vitest.config.ts runs the tests in two projects: `main` (two files at a time) and then `fault` (kill -9,
# pause, crash, Kafka cluster and browser tests, one file at a time). It ends with the 15 slowest files and
# the tests that needed the fault project's retry (ops/src/test-report.ts); this script adds its phases.
set -euo pipefail
cd "$(dirname "$0")/../.."
phases=()
phase() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  phases+=("$(printf '%6d s  %s' $((SECONDS - t0)) "$name")")
}
report() {
  local rc=$?
  [ ${#phases[@]} -gt 0 ] && printf 'npm test phases:\n%s\n' "$(printf '  %s\n' "${phases[@]}")"
  echo "npm test: exit $rc after ${SECONDS} s"
}
trap report EXIT
phase deps bash ops/bin/ensure-deps.sh
phase stack npm run -s stack -- up
phase migrate npm run -s migrate
phase lint npm run -s lint
# The browser tests drive the built UI.
phase build:web npm run -s build:web
NODE_OPTIONS="--disable-warning=TimeoutNegativeWarning ${NODE_OPTIONS:-}" phase vitest npx vitest run "$@"
