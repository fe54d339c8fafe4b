#!/usr/bin/env bash
# Profiles a kgmem server under cmd/load: builds cmd/server from the working
# tree, starts it on loopback over a fresh embedded data directory with
# --pprof-addr, runs `go run ./cmd/load -url …` against it and, while the
# load runs, takes a CPU profile and then a goroutine dump; prints the load
# report and the profile's top entries (flat and cumulative), and leaves the
# profile (cpu.pprof), the dump (goroutines.txt) and the allocations
# (allocs.pprof) in OUT.
#
#   scripts/profile-load.sh [OUT_DIR] [cmd/load flags, e.g. -clients 50 -duration 40s]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/kgmem-server.sh
out="${1:-$(mktemp -d /tmp/kgmem-profile-XXXXXX)}"
shift || true
load_args=("$@")
((${#load_args[@]})) || load_args=(-clients 50 -duration 40s -settle 0) # CPU, not the heap's return to baseline
mkdir -p "$out"
pprof_port="$(kgmem_free_port)"
kgmem_build "$out"
kgmem_start "$out/data" --pprof-addr "127.0.0.1:$pprof_port"
trap kgmem_stop EXIT
# The profile covers the middle of the run: it starts 5 s in and lasts
# half of -duration (20 s of the default 40 s).
go run ./cmd/load -url "$KGMEM_URL" "${load_args[@]}" >"$out/load.txt" 2>"$out/load.log" &
load_pid=$!
duration=40
for ((i = 0; i < ${#load_args[@]}; i++)); do
  if [[ "${load_args[$i]}" == "-duration" ]]; then duration="${load_args[$((i + 1))]%s}"; fi
done
sleep 5
curl -fsS -o "$out/cpu.pprof" "http://127.0.0.1:$pprof_port/debug/pprof/profile?seconds=$((duration / 2))"
# Where the server's goroutines are, once, while the load still runs:
# requests waiting on a lock or a connection show here, not in CPU time.
curl -fsS -o "$out/goroutines.txt" "http://127.0.0.1:$pprof_port/debug/pprof/goroutine?debug=1"
# What the run allocated so far, by allocation site (go tool pprof
# -sample_index=alloc_space): the collector's work follows it.
curl -fsS -o "$out/allocs.pprof" "http://127.0.0.1:$pprof_port/debug/pprof/allocs"
wait "$load_pid" || { cat "$out/load.log" >&2; exit 1; }
cat "$out/load.txt"
echo "== CPU profile ($out/cpu.pprof), top by flat time"
go tool pprof -top -nodecount=25 "$KGMEM_BIN" "$out/cpu.pprof" 2>/dev/null | sed -n '1,32p'
echo "== top by cumulative time"
go tool pprof -top -cum -nodecount=40 "$KGMEM_BIN" "$out/cpu.pprof" 2>/dev/null | sed -n '6,46p'
