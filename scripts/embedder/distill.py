"""Distil a BERT sentence-embedding model into a static embedding.

Every vocabulary token is passed through the transformer once, as the
sequence [CLS] token [SEP]; the outputs are mean-pooled (the model's own
pooling) into one vector per token. The vectors are reduced by a truncated SVD, weighted
by the token's Zipf probability (smooth inverse frequency, as Model2Vec does)
and written as float16 with the vocabulary:

    <out>/embeddings.safetensors   tensor "embeddings" [vocab, dim] float16
    <out>/vocab.txt                the WordPiece vocabulary, one token a line
    <out>/config.json              name, dimension, tokenizer settings

kgmem's embed.LoadStatic reads that directory. Needs numpy and safetensors.

    python distill.py --model DIR --out DIR [--dim 256] [--sif 1e-4]
"""

import argparse
import json
import math
import os
import shutil
import sys
import time

import numpy as np
from safetensors.numpy import load_file, save_file


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    # BERT's exact GELU, through erf.
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def erf(x):
    # Abramowitz and Stegun 7.1.26: absolute error below 1.5e-7.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return sign * y


class Bert:
    """A numpy forward pass of a BERT encoder (float32)."""

    def __init__(self, model_dir):
        with open(os.path.join(model_dir, "config.json")) as f:
            self.cfg = json.load(f)
        self.w = load_file(os.path.join(model_dir, "model.safetensors"))
        self.eps = self.cfg.get("layer_norm_eps", 1e-12)
        self.heads = self.cfg["num_attention_heads"]
        self.layers = self.cfg["num_hidden_layers"]

    def lin(self, x, name):
        # One 2-D GEMM over all positions: a 3-D matmul would run one small
        # product per sequence.
        shape = x.shape
        y = x.reshape(-1, shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return y.reshape(*shape[:-1], -1)

    def forward(self, ids, mask):
        """ids, mask: [batch, seq] ints. Returns last hidden states [batch, seq, hidden]."""
        w = self.w
        b, s = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(s)][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        hd = x.shape[-1] // self.heads
        neg = (1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = self.lin(x, p + "attention.self.query").reshape(b, s, self.heads, hd).transpose(0, 2, 1, 3)
            k = self.lin(x, p + "attention.self.key").reshape(b, s, self.heads, hd).transpose(0, 2, 3, 1)
            v = self.lin(x, p + "attention.self.value").reshape(b, s, self.heads, hd).transpose(0, 2, 1, 3)
            a = q @ k / math.sqrt(hd) + neg
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(b, s, -1)
            x = layer_norm(x + self.lin(ctx, p + "attention.output.dense"),
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
            h = gelu(self.lin(x, p + "intermediate.dense")).astype(np.float32)
            x = layer_norm(x + self.lin(h, p + "output.dense"),
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        return x


def read_vocab(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def token_vectors(bert, vocab, batch=2048):
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    n = len(vocab)
    out = np.zeros((n, bert.cfg["hidden_size"]), dtype=np.float32)
    for start in range(0, n, batch):
        ids = np.arange(start, min(n, start + batch))
        seq = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        h = bert.forward(seq, np.ones_like(seq))
        out[ids] = h.mean(axis=1)  # the model's mean pooling over [CLS] token [SEP]
        print(f"\rtokens {min(n, start + batch)}/{n}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="directory with config.json, model.safetensors, vocab.txt")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="minilm-l6-static")
    ap.add_argument("--dim", type=int, default=256, help="SVD dimension (0 keeps the model's)")
    ap.add_argument("--sif", type=float, default=1e-4, help="SIF coefficient of the Zipf weighting (0: none)")
    ap.add_argument("--raw", help="cache the un-reduced token vectors here (.npy) and reuse them")
    args = ap.parse_args()

    t0 = time.time()
    vocab = read_vocab(os.path.join(args.model, "vocab.txt"))
    if args.raw and os.path.exists(args.raw):
        vecs = np.load(args.raw)
    else:
        vecs = token_vectors(Bert(args.model), vocab)
        if args.raw:
            np.save(args.raw, vecs)
    t1 = time.time()

    dim = vecs.shape[1]
    if 0 < args.dim < dim:
        # Truncated SVD, not centred: on LoCoMo (dense retrieval alone,
        # evidence recall@10) centring cost 0.02-0.04, and 256 uncentred
        # dimensions did as well as all 384.
        _, _, vt = np.linalg.svd(vecs, full_matrices=False)
        vecs = vecs @ vt[: args.dim].T
        dim = args.dim
    if args.sif > 0:
        # Zipf's law on the vocabulary rank stands in for token frequencies.
        inv_rank = 1.0 / np.arange(2, len(vocab) + 2)
        proba = inv_rank / inv_rank.sum()
        vecs = vecs * (args.sif / (args.sif + proba))[:, None]

    os.makedirs(args.out, exist_ok=True)
    cfg = {
        "name": f"{args.name}-{dim}",
        "dimension": dim,
        "source": "sentence-transformers/all-MiniLM-L6-v2",
        "lowercase": True,
        "strip_accents": True,
        "unk_token": "[UNK]",
        "continuing_subword_prefix": "##",
        "max_input_chars_per_word": 100,
        "svd": args.dim,
        "sif": args.sif,
    }
    save_file({"embeddings": vecs.astype(np.float16)}, os.path.join(args.out, "embeddings.safetensors"),
              metadata={"name": cfg["name"]})
    shutil.copyfile(os.path.join(args.model, "vocab.txt"), os.path.join(args.out, "vocab.txt"))
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    print(f"forward {t1 - t0:.1f}s, total {time.time() - t0:.1f}s; wrote {args.out} ({len(vocab)} x {dim})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
