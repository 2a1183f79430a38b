#!/usr/bin/env bash
# Quick start: install what is missing, build the web app, load the demo data into the embedded store
# (./.terrarium, or TERRARIUM_DATA_DIR) and serve the workbench on 127.0.0.1. Extra arguments go to
# `terrarium serve` (e.g. --port 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  if [ "$arg" = "--help" ] || [ "$arg" = "-h" ]; then
    echo "usage: bash scripts/start.sh [terrarium serve options, e.g. --port 8080]"
    echo "Installs pnpm and the dependencies, builds the web app, loads the demo data into"
    echo "./.terrarium (or TERRARIUM_DATA_DIR) and serves the workbench on 127.0.0.1."
    echo "The options after it go to \`terrarium serve --demo\`:"
    echo
    if [ -d node_modules ]; then exec pnpm --silent terrarium serve --help; fi
    echo "(run it once to install, then \`pnpm terrarium serve --help\` lists them)"
    exit 0
  fi
done
source scripts/lib/ensure-pnpm.sh
pnpm install --frozen-lockfile
# The build's file list is noise before the one thing to read (the URL); it is shown if it fails.
echo "Building the web app…"
build_log="$(mktemp)"
if ! pnpm --silent build > "$build_log" 2>&1; then
  cat "$build_log"
  rm -f "$build_log"
  exit 1
fi
rm -f "$build_log"
exec pnpm --silent terrarium serve --demo "$@"
