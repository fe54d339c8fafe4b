#!/usr/bin/env bash
# End-to-end test of kgmem's MCP server with the official MCP Python SDK as
# the client (tests/mcp): over stdio (`server mcp`, in process) and over
# streamable HTTP (POST /mcp on a real server with API keys). Creates the
# venv ~/.cache/kgmem/venv-mcp from tests/mcp/requirements.txt when missing
# or changed, builds the server, starts it on a free loopback port and stops
# it on exit. Under CI a missing Python fails the run.
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
