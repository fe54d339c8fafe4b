// Package embed holds kgmem's embedders, implementations of kgmem.Embedder.
//
// # Hashing (the offline default)
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
//   - bigrams of adjacent kept words ("machine learning", "new york");
//   - character 3-, 4- and 5-grams of every kept word with boundary marks
//     ("<pai", "ain", "ting>"…), which survive typos and inflections
//     ("Stokholm" still overlaps "Stockholm", "Stockholms" more so).
//
// Each feature is signed-hashed (64-bit FNV-1a: the bucket from the hash, the
// sign from its top bit) with a sublinear term frequency 1 + ln(tf), and the
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
// one. Hash collisions add small noise, more at low dimensions; 256 is the
// default, 512–1024 are a little sharper. For semantic recall, use an
// embedding model through NewOpenAI.
//
// # OpenAI-compatible APIs
//
// NewOpenAI calls the /embeddings endpoint of OpenAI, Azure OpenAI or any
// compatible server (Ollama, vLLM, LiteLLM…) through
// github.com/sashabaranov/go-openai, in batches, retrying rate limits and
// server errors with exponential backoff.
package embed
