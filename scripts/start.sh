#!/usr/bin/env bash
# Quick start: install what is missing, build the web app, load the demo data into the embedded store
# (./.terrarium, or TERRARIUM_DATA_DIR) and serve the workbench on 127.0.0.1. Extra arguments go to
# `terrarium serve` (e.g. --port 8080).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/ensure-pnpm.sh
pnpm install --frozen-lockfile
pnpm build
exec pnpm --silent terrarium serve --demo "$@"
