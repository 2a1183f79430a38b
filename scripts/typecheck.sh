#!/usr/bin/env bash
# Typecheck every project (each has its own lib/types: the web app has the DOM, the server has Node).
# Projects are found, not listed, so a new package (and its tests: each tsconfig includes src) is
# never skipped; a package without a tsconfig.json is an error.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for project in packages/* apps/* e2e benchmarks; do
  [ -d "$project" ] || continue
  if [ ! -f "$project/tsconfig.json" ]; then
    echo "typecheck failed: $project has no tsconfig.json" >&2
    status=1
    continue
  fi
  if ! npx tsc -p "$project"; then
    echo "typecheck failed: $project" >&2
    status=1
  fi
done
exit $status
