// Package lexical ranks one namespace's records of one kind by BM25 in
// memory: the lexical retriever of hybrid search.
//
// A graph store builds an Index from the texts it indexes for search (a
// fact's sentence, an episode's speaker and content, an entity's names) and
// keeps it in an nscache.Cache at the namespace's graph version, so a search
// costs a walk of its terms' posting lists in memory rather than a full-text
// query. A write does not make the index be read again: the store derives
// the next version with Index.With from what it wrote (a new segment for the
// added texts, replaced ones marked dead), which ranks exactly as an index
// built from scratch. Statistics (document count, average length, document frequencies)
// are the namespace's own: one tenant's records never change another's
// ranking.
//
// Text is split by Words, folded (lower case, diacritics removed) and
// Porter-stemmed by Tokens; queries drop English stop words (QueryTerms).
// The stemmer is Porter's original one, as in FTS5's porter tokenizer (not
// the Snowball English stemmer entity linking uses), so that both rank alike.
// Scores follow SQLite FTS5's bm25() (k1 = 1.2, b = 0.75, idf
// log((N − n + 0.5) / (n + 0.5)) floored at 1e-6), so an index of one
// namespace ranks as an FTS5 table holding only that namespace would.
package lexical
