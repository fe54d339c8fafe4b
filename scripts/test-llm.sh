#!/usr/bin/env bash
# Extraction against real local LLMs (internal/locallm, go test -tags llm):
# llama-cpp-python's server and llama.cpp's llama-server serving
# SmolLM2-135M (the structured-output dialects, failures), and
# both serving Qwen2.5-Coder-1.5B (facts, through the whole ingest). scripts/llm.sh builds
# and caches both servers and the models under ~/.cache/kgmem/llm (minutes
# the first time), starts them on loopback and this script stops them on
# exit. Under CI a missing toolchain fails the run.
#
#   scripts/test-llm.sh [go test args]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/kgmem-server.sh
kgmem_require_python test-llm
for tool in cmake c++ unzip curl; do
  if ! command -v "$tool" >/dev/null; then
    if [[ -n "${CI:-}" ]]; then echo "test-llm: $tool is required (CI)" >&2; exit 1; fi
    echo "test-llm: $tool not installed; skipping" >&2
    exit 0
  fi
done

started=()
stop_all() {
  local s
  for s in "${started[@]}"; do
    # shellcheck disable=SC2086
    KGMEM_LLM_PORT="${s##*:}" scripts/llm.sh stop --server "${s%%:*}" || true
  done
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# Inference runs niced: this suite runs next to `go test` and the other side
# suites (scripts/test.sh), whose servers answer within deadlines; a starved
# Neo4j once failed searches there at their 5 s deadline while both cores ran
# matrix products. The extraction calls here have deadlines of minutes.
start() { # start SERVER MODEL PORT: prints the base URL (run it in $(…); register first)
  KGMEM_LLM_NICE="${KGMEM_LLM_NICE:-10}" KGMEM_LLM_PORT="$3" scripts/llm.sh start --server "$1" --model "$2"
}

started+=(llama-cpp-python:18180 llama-server:18181 llama-server:18182 llama-cpp-python:18183)
cpp_url="$(start llama-cpp-python smollm2 18180)"
server_url="$(start llama-server smollm2 18181)"
qwen_url="$(start llama-server qwen1.5b 18182)"
qwen_cpp_url="$(start llama-cpp-python qwen1.5b 18183)"

KGMEM_TEST_LLAMA_CPP_PYTHON_URL="$cpp_url" KGMEM_TEST_LLAMA_SERVER_URL="$server_url" KGMEM_TEST_LLM_MODEL=smollm2 \
  KGMEM_TEST_QWEN_URL="$qwen_url" KGMEM_TEST_QWEN_CPP_PYTHON_URL="$qwen_cpp_url" go test -tags llm -count=1 -timeout 30m "$@" ./internal/locallm
