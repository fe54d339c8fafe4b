#!/usr/bin/env bash
# End-to-end test of kgmem's MCP server with the official MCP Python SDK as
# the client (tests/mcp): over stdio (`server mcp`, in process) and over
# streamable HTTP (POST /mcp on a real server with API keys). Creates the
# venv ~/.cache/kgmem/venv-mcp from tests/mcp/requirements.txt when missing
# or changed, builds the server, starts it on a free loopback port and stops
# it on exit. Then the MCP Inspector (pinned in tests/mcp/inspector,
# installed from its lock file into ~/.cache/kgmem/inspector when missing or
# changed) lists the tools with --strict, over stdio and over HTTP: any
# tool-schema portability finding, warning or error, fails the run. Under CI
# a missing Python or npm fails the run.
#
#   scripts/test-mcp.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/kgmem-server.sh
kgmem_require_python test-mcp

venv="${HOME}/.cache/kgmem/venv-mcp"
kgmem_venv "$venv" tests/mcp/requirements.txt

tmp="$(mktemp -d)"
trap 'kgmem_stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

kgmem_build "$tmp"
admin="kgm_admin_$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
scoped="$("$KGMEM_BIN" keys create --data-dir "$tmp/http" --name mcp-e2e --prefix acme/users --right write --json |
  "$venv/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["key"])')"
KGMEM_ADMIN_KEY="$admin" KGMEM_LOG_LEVEL=warn kgmem_start "$tmp/http"

KGMEM_BIN="$KGMEM_BIN" KGMEM_URL="$KGMEM_URL" KGMEM_ADMIN_KEY="$admin" KGMEM_SCOPED_KEY="$scoped" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/mcp "$@"

# The Inspector's --strict portability check: zero findings.
if ! command -v npm >/dev/null; then
  if [[ -n "${CI:-}" ]]; then
    echo "test-mcp: npm is required for the MCP Inspector check (CI)" >&2
    exit 1
  fi
  echo "test-mcp: npm not installed; skipping the MCP Inspector check" >&2
  exit 0
fi
inspector="${HOME}/.cache/kgmem/inspector"
want="$(sha256sum tests/mcp/inspector/package-lock.json | cut -d' ' -f1)"
if [[ ! -x "$inspector/node_modules/.bin/mcp-inspector" || "$(cat "$inspector/.lock.sha256" 2>/dev/null)" != "$want" ]]; then
  echo "installing the MCP Inspector into $inspector"
  mkdir -p "$inspector"
  cp tests/mcp/inspector/package.json tests/mcp/inspector/package-lock.json "$inspector/"
  # npm install, not npm ci: the lock file holds an optional dependency of
  # the Inspector with no version, which npm ci refuses as out of sync.
  (cd "$inspector" && npm_config_cache="${HOME}/.cache/kgmem/npm" npm install --no-audit --no-fund --loglevel=error)
  echo "$want" >"$inspector/.lock.sha256"
fi
strict() {
  local what="$1" out="$tmp/inspector-$1.err"
  shift
  if ! KGMEM_LOG_LEVEL=warn "$inspector/node_modules/.bin/mcp-inspector" --cli --strict --method tools/list "$@" >"$tmp/inspector-$what.out" 2>"$out"; then
    echo "test-mcp: the MCP Inspector --strict ($what) failed:" >&2
    cat "$out" >&2
    exit 1
  fi
  local tools
  tools="$("$venv/bin/python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["tools"]))' "$tmp/inspector-$what.out")"
  if grep -Eq '^(Warning|Error)' "$out" || ((tools == 0)); then
    echo "test-mcp: the MCP Inspector --strict ($what) reports tool-schema findings (or lists no tools):" >&2
    cat "$out" >&2
    exit 1
  fi
  echo "MCP Inspector --strict ($what): $tools tools, no findings"
}
strict stdio "$KGMEM_BIN" mcp --data-dir "$tmp/stdio-inspector"
# (--header takes several values: the URL goes first.)
strict http "$KGMEM_URL/mcp" --transport http --header "Authorization: Bearer $admin"
