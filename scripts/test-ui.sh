#!/usr/bin/env bash
# Tests of the web explorer (ui/, served at /ui):
#  1. the front end type-checks (tsc) and its unit tests pass (vitest), and
#     the committed bundle ui/dist is exactly what `npm ci && npm run build`
#     makes from ui/, so `go run ./cmd/server` on a fresh
#     clone serves the current sources;
#  2. a real headless Chromium (Debian's chromium, installed when missing)
#     drives the explorer against the real server on each backend pair:
#     go test -tags browser ./ui (TestExplorer).
# Under CI a missing Node.js/npm or Chromium fails the run.
#
#   scripts/test-ui.sh
#   KGMEM_UI_SCREENSHOTS=$PWD/docs/ui scripts/test-ui.sh   # also rewrites the explorer guide's screenshots
set -euo pipefail
cd "$(dirname "$0")/.."

missing() {
  if [[ -n "${CI:-}" ]]; then
    echo "test-ui: $1 (required in CI)" >&2
    exit 1
  fi
  echo "test-ui: $1; skipping that step" >&2
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# 1. The bundle matches its sources.
if command -v npm >/dev/null; then
  export npm_config_cache="${HOME}/.cache/kgmem/npm"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run --silent check && npm test --silent && npx vite build --logLevel warn --outDir "$tmp/dist" --emptyOutDir)
  if ! diff -r "$tmp/dist" ui/dist; then
    echo "test-ui: ui/dist is stale: run (cd ui && npm ci && npm run build) and commit ui/dist" >&2
    exit 1
  fi
  echo "test-ui: ui/dist matches a fresh build"
else
  missing "npm is not installed, cannot rebuild ui/dist"
fi

# 2. The explorer in a real browser.
chromium="${KGMEM_TEST_CHROMIUM:-$(command -v chromium || true)}"
if [[ -z "$chromium" ]] && command -v apt-get >/dev/null; then
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  chromium="$(command -v chromium || true)"
fi
if [[ -z "$chromium" ]]; then
  missing "Chromium is not installed (apt-get install chromium)"
  exit 0
fi
KGMEM_TEST_CHROMIUM="$chromium" go test -tags browser -count=1 -timeout 20m -run 'TestExplorer' ./ui
