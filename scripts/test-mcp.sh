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

if ! command -v python3 >/dev/null; then
  if [[ -n "${CI:-}" ]]; then
    echo "test-mcp: python3 is required (CI)" >&2
    exit 1
  fi
  echo "test-mcp: python3 not installed; skipping" >&2
  exit 0
fi

venv="${HOME}/.cache/kgmem/venv-mcp"
stamp="$venv/.requirements.sha256"
want="$(sha256sum tests/mcp/requirements.txt | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  echo "test-mcp: installing tests/mcp/requirements.txt into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/mcp/requirements.txt
  echo "$want" >"$stamp"
fi

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o "$tmp/kgmem" ./cmd/server
admin="kgm_admin_$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
scoped="$("$tmp/kgmem" keys create --data-dir "$tmp/http" --name mcp-e2e --prefix acme/users --right write --json |
  "$venv/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["key"])')"
port="$("$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
KGMEM_ADMIN_KEY="$admin" KGMEM_LOG_LEVEL=warn "$tmp/kgmem" serve --addr "127.0.0.1:$port" --data-dir "$tmp/http" --ui=false \
  >"$tmp/server.log" 2>&1 &
server_pid=$!
url="http://127.0.0.1:$port"
deadline=$((SECONDS + 60))
until curl -fsS "$url/healthz" >/dev/null 2>&1; do
  if ((SECONDS > deadline)) || ! kill -0 "$server_pid" 2>/dev/null; then
    echo "test-mcp: the server did not start:" >&2
    cat "$tmp/server.log" >&2
    exit 1
  fi
  sleep 0.2
done

KGMEM_BIN="$tmp/kgmem" KGMEM_URL="$url" KGMEM_ADMIN_KEY="$admin" KGMEM_SCOPED_KEY="$scoped" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/mcp "$@"
