#!/usr/bin/env bash
# Runs every test: static checks (types, lint, format), unit and integration tests (against embedded
# PGlite and against a real PostgreSQL server started here), and Playwright e2e in Debian's Chromium.
# Installs what is missing first (pnpm, chromium, postgresql). Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export NO_COLOR=1 FORCE_COLOR=0

source scripts/lib/ensure-pnpm.sh

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing ${missing[*]} from Debian…"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

pnpm install --frozen-lockfile || exit 1

# The Gymnasium example (examples/python) is checked with gymnasium's own check_env, and the
# OpenAPI document with openapi-spec-validator.
python3 -c 'import gymnasium' 2>/dev/null || python3 -m pip install -q gymnasium >/dev/null
python3 -c 'import openapi_spec_validator' 2>/dev/null ||
  python3 -m pip install -q openapi-spec-validator >/dev/null

RESULTS=$(mktemp -d)
# Each phase's header says when it started (seconds since this script did), so a slow CI run shows
# where its time went.
phase() { echo "── $1 (at ${SECONDS} s)"; }
check() { # name, command...: a static check counts as one test
  local name=$1
  shift
  phase "$name"
  if "$@"; then echo "ok" >"$RESULTS/check-$name"; else echo "fail" >"$RESULTS/check-$name"; fi
}
check typecheck bash scripts/typecheck.sh
check lint pnpm --silent lint
check format pnpm --silent format:check

PG_DIR=$(mktemp -d)
PG_PORT=$((20000 + RANDOM % 20000))
if TEST_DATABASE_URL=$(bash scripts/pg-test-server.sh start "$PG_DIR" "$PG_PORT"); then
  export TEST_DATABASE_URL
else
  echo "could not start PostgreSQL; the PostgreSQL suites will fail" >&2
fi
trap 'bash scripts/pg-test-server.sh stop "$PG_DIR" >/dev/null 2>&1' EXIT

phase "unit and integration tests (vitest)"
npx vitest run --no-isolate --reporter=default --reporter=json --outputFile.json="$RESULTS/vitest.json"

phase "web build"
check build pnpm --silent build

phase "end-to-end tests (Playwright, Chromium)"
E2E_JSON="$RESULTS/playwright.json" npx playwright test -c e2e/playwright.config.ts
phase "summary"
node scripts/lib/summarize.mjs "$RESULTS"
