# Sourced by the quick-start scripts: make the pinned pnpm available (package.json "packageManager").
PNPM_VERSION=12.4.2
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "Installing pnpm $PNPM_VERSION with npm…"
  npm install --global --silent "pnpm@$PNPM_VERSION"
fi
