#!/usr/bin/env bash
# `npm run lint`: eslint, prettier, tsc (service and web) and the dependency rules, in two lanes side by side
# (each tool is mostly single-threaded: 107 s one after the other on 2 cores, about 60 s in two lanes).
# Each lane's output is printed whole once it ends; the exit status is non-zero if any tool failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
( npx eslint . ) >"$out/a" 2>&1 &
a=$!
(
  set -e
  npx prettier --check .
  npx tsc -p tsconfig.json
  npm run -s typecheck -w web
  npm run -s lint:boundaries
) >"$out/b" 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
cat "$out/a" "$out/b"
[ $ra -eq 0 ] || echo "lint: eslint failed (exit $ra)"
[ $rb -eq 0 ] || echo "lint: prettier, tsc or the dependency rules failed (exit $rb)"
[ $ra -eq 0 ] && [ $rb -eq 0 ]
