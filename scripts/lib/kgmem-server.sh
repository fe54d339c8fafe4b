# Sourced by the side suites (scripts/test-*.sh) that drive a real kgmem
# server: build it, start it on a free loopback port, stop it on exit.
#
#   source scripts/lib/kgmem-server.sh
#   kgmem_build "$tmp"                       # sets KGMEM_BIN
#   kgmem_start "$tmp/data" [serve flags…]   # sets KGMEM_URL, KGMEM_PID; env passes through
#   trap kgmem_stop EXIT                     # (kgmem_stop also runs from the caller's own trap)

# kgmem_build builds the server into DIR/kgmem and sets KGMEM_BIN.
kgmem_build() {
  go build -o "$1/kgmem" ./cmd/server
  KGMEM_BIN="$1/kgmem"
}

# kgmem_free_port prints a free loopback TCP port.
kgmem_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# kgmem_start starts `kgmem serve` with its data in DATA and waits (60 s at
# most) for /healthz; its log is DATA.log, printed if it does not come up.
kgmem_start() {
  local data="$1"
  shift
  local port
  port="$(kgmem_free_port)"
  "$KGMEM_BIN" serve --addr "127.0.0.1:$port" --data-dir "$data" --ui=false "$@" >"$data.log" 2>&1 &
  KGMEM_PID=$!
  KGMEM_URL="http://127.0.0.1:$port"
  local deadline=$((SECONDS + 60))
  until curl -fsS "$KGMEM_URL/healthz" >/dev/null 2>&1; do
    if ((SECONDS > deadline)) || ! kill -0 "$KGMEM_PID" 2>/dev/null; then
      echo "kgmem did not start:" >&2
      cat "$data.log" >&2
      return 1
    fi
    sleep 0.2
  done
}

# kgmem_stop stops the server kgmem_start started, if any.
kgmem_stop() {
  if [[ -n "${KGMEM_PID:-}" ]]; then
    kill "$KGMEM_PID" 2>/dev/null || true
    wait "$KGMEM_PID" 2>/dev/null || true
    KGMEM_PID=""
  fi
}

# kgmem_venv DIR REQUIREMENTS creates or refreshes the venv DIR from the
# pinned REQUIREMENTS file (reinstalled only when the file changes).
kgmem_venv() {
  local venv="$1" req="$2"
  local stamp="$venv/.requirements.sha256" want
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    echo "installing $req into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
    echo "$want" >"$stamp"
  fi
}

# kgmem_require_python fails under CI, or skips the suite, when python3 is missing.
kgmem_require_python() {
  if command -v python3 >/dev/null; then
    return 0
  fi
  if [[ -n "${CI:-}" ]]; then
    echo "$1: python3 is required (CI)" >&2
    exit 1
  fi
  echo "$1: python3 not installed; skipping" >&2
  exit 0
}
