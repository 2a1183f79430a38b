#!/usr/bin/env bash
# Typecheck every project (each has its own lib/types: the web app has the DOM, the server has Node).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for project in packages/schema packages/formats packages/fidelity packages/worlds packages/inference packages/rubrics packages/labels packages/executable-worlds packages/curriculum packages/db packages/api apps/server apps/cli apps/web e2e benchmarks; do
  if ! npx tsc -p "$project"; then
    echo "typecheck failed: $project" >&2
    status=1
  fi
done
exit $status
