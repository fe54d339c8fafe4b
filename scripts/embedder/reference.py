"""Write the reference fixtures kgmem's Go tests compare against.

    python reference.py --tokenizer tokenizer.json --model DIR --out DIR

<out>/wordpiece_reference.json: for each sentence, the token ids Hugging Face
tokenizers gives (special tokens left out).
<out>/static_reference.json: for each sentence, the static model's vector
computed here in numpy (mean of its known tokens' rows, L2-normalised), and
the model's name. Needs numpy, safetensors and tokenizers.
"""

import argparse
import json
import os

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

SENTENCES = [
    "Hello, world!",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: That's awesome! What did you paint last weekend? a photo of a sunset over a lake",
    "When did Caroline move from Sweden?",
    "I'm thinking of adopting a dog named Oscar - he's a golden retriever.",
    "Don't you think we shouldn't've gone? I can't believe it; we'd won.",
    "Nils lived in Stockholm in 2020, then moved to Göteborg.",
    "Café crème, naïve façade, résumé, Ångström, São Paulo, Zürich, Ærø.",
    "İstanbul and ŞİŞLİ are in Türkiye.",
    "Ελληνικά: Σωκράτης ΣΟΦΟΣ; Русский язык: Привет, мир!",
    "日本語のテキストと中文文本，还有한국어 텍스트。",
    "Emoji 😀🎉 are unknown, ❤️ too; so is 🧑‍🤝‍🧑.",
    "Numbers: 3.14159, 1,000,000, 42nd, 7pm, 2023-05-08T14:30:00Z, $19.99, 50%.",
    "Email me at someone@example.com or visit https://example.org/path?q=1&x=y#frag.",
    "Tabs\tand\nnewlines\r\nand  multiple   spaces.",
    "Control\u0000chars\u0007and\u200bzero\u200dwidth\ufeffmarks\u00adsoft-hyphen.",
    "Non\u00a0breaking\u2003em\u3000ideographic spaces.",
    "Symbols: a+b=c, x<y>z, ^caret^, `tick`, |pipe|, ~tilde~, ©®™ §¶ °±×÷ €£¥.",
    "Quotes “curly” ‘single’ «guillemets» „low“ — dashes – and … ellipsis.",
    "supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "a" * 101,
    "x" * 100,
    "ALL CAPS SENTENCE WITH ACRONYMS LIKE NASA, FBI AND GPT-4o.",
    "hyphenated-words, snake_case_names, camelCaseWords and dot.separated.tokens",
    "The quick brown fox jumps over the lazy dog.",
    "Her mom's birthday is on the 4th of July; she's turning 60.",
    "What books has Melanie read? \"Charlotte's Web\" and 'Nothing is Impossible'.",
    "I started a new job as a software engineer at a startup in Berlin.",
    "We went camping at the beach with the kids and roasted marshmallows.",
    "The résumé's accents: e\u0301 (combining acute) vs é (precomposed).",
    "ﬁ ligature, ｆｕｌｌｗｉｄｔｈ letters, ① circled, ² superscript, Ⅻ roman.",
    "Arabic العربية and Hebrew עברית and Hindi हिन्दी and Thai ภาษาไทย.",
    "Mixed: Müller's Straße (ß) and Œuvre, Łódź, Dvořák, Ørsted.",
    # Left out: text spelling a special token ("[CLS]"), which tokenizers
    # turns into that token and kgmem tokenizes as ordinary text.
    "   leading and trailing spaces   ",
    "",
    "?!",
    "He said: 'I'll be there at 5:30 p.m. sharp!'",
    "Running, runner, runs, ran; painting, painted, paints.",
    "The unicode replacement char \ufffd should vanish.",
    "A word with a private-use char \ue000 inside.",
    "Kitchen renovation, dog adoption, pottery classes and a road trip to Yellowstone.",
    "She relocated abroad to pursue a master's degree in counseling.",
    "My grandma gave me this necklace when I was a little girl in Sweden.",
    "Did John play basketball or volleyball in high school?",
    "xyzzyqwv zzxqj blorptastic fnargle",
    "tokenization's ##hash prefixed ##ing text",
    "U.S.A. vs. U.K., e.g. i.e. etc.",
    "Ünïcödé ÜBER ALLES; ÀÉÎÕÜ àéîõü",
    "Ｔｏｋｙｏ　２０２０ in full width.",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    tok = Tokenizer.from_file(args.tokenizer)
    tok.no_padding()  # tokenizer.json pads to 128 tokens
    tok.no_truncation()  # and truncates there; kgmem embeds the whole text
    with open(os.path.join(args.model, "config.json")) as f:
        cfg = json.load(f)
    emb = load_file(os.path.join(args.model, "embeddings.safetensors"))["embeddings"].astype(np.float32)
    unk = tok.token_to_id(cfg.get("unk_token", "[UNK]"))

    words, vectors = [], []
    for s in SENTENCES:
        ids = tok.encode(s, add_special_tokens=False).ids
        words.append({"text": s, "ids": ids})
        known = [i for i in ids if i != unk]
        v = emb[known].mean(axis=0) if known else np.zeros(emb.shape[1], dtype=np.float32)
        n = np.linalg.norm(v)
        if n > 0:
            v = v / n
        vectors.append({"text": s, "vector": [round(float(x), 6) for x in v]})

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "wordpiece_reference.json"), "w", encoding="utf-8") as f:
        json.dump(words, f, ensure_ascii=False, indent=0)
        f.write("\n")
    with open(os.path.join(args.out, "static_reference.json"), "w", encoding="utf-8") as f:
        json.dump({"model": cfg["name"], "sentences": vectors}, f, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
