#!/usr/bin/env bash
# Typecheck every project (each has its own lib/types: the web app has the DOM, the server has Node).
# Projects are found, not listed, so a new package (and its tests: each tsconfig includes src) is
# never skipped; a package without a tsconfig.json is an error. Projects are checked in parallel, one
# per core (TYPECHECK_JOBS overrides), each one's errors printed together once it is done.
set -euo pipefail
cd "$(dirname "$0")/.."

check_project() {
  local project=$1 output
  if [ ! -f "$project/tsconfig.json" ]; then
    echo "typecheck failed: $project has no tsconfig.json" >&2
    return 1
  fi
  if ! output=$(node_modules/.bin/tsc -p "$project" 2>&1); then
    printf '%s\n' "$output"
    echo "typecheck failed: $project" >&2
    return 1
  fi
}
export -f check_project

projects=()
for project in packages/* apps/* e2e benchmarks models; do
  [ -d "$project" ] && projects+=("$project")
done
# xargs exits non-zero when any project failed.
printf '%s\n' "${projects[@]}" |
  xargs -P "${TYPECHECK_JOBS:-$(nproc)}" -I{} bash -c 'check_project "$1"' _ {}
