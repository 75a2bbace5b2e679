#!/usr/bin/env bash
# Runs the fault project (kill -9, pause, crash, Kafka cluster and browser tests) N times in a row with a
# busy loop pinned to CPU 0 beside it, as issue 30 asks of every fault test, and prints one line per run:
#   bash ops/bin/fault-soak.sh 10 [vitest filters...]
# Needs the stack up (`npm run stack -- up && npm run migrate`) and web/dist built (`npm run build:web`).
# The busy loop stays for the whole soak; it is killed when the script ends, however it ends.
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
shift || true
taskset -c 0 sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT
echo "fault soak: $runs runs, busy loop pid $busy pinned to CPU 0"
failed=0
for i in $(seq 1 "$runs"); do
  log=$(mktemp -t fault-soak.XXXXXX.log)
  t0=$SECONDS
  NODE_OPTIONS="--disable-warning=TimeoutNegativeWarning" npx vitest run --project fault "$@" >"$log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || failed=$((failed + 1))
  tests=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ +Tests ' | tail -1 | sed 's/^ *//')
  flaky=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | sed -n '/^flaky/,/^$/p' | tr '\n' ' ')
  echo "run $i: exit $rc after $((SECONDS - t0)) s, $(cut -d' ' -f1-3 /proc/loadavg) load; $tests; $flaky log $log"
done
echo "fault soak: $failed of $runs runs failed"
[ $failed -eq 0 ]
