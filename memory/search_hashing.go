package memory

// HashingVectorWeight is the vector retriever's weight in the fusion when
// the embedder is the lexical hashing one (embed.Hashing), as the server
// sets it by default. That embedder finds what BM25 finds, ranked worse: on
// LoCoMo, evidence recall@10 is 70.2 at weight 0.0001, 69.6 at 0.05 and
// 63.1 at 0.25 (bench/journal/benchmarks-2026-11.md).
const HashingVectorWeight = 0.01

// HashingSearchOptions are the search options of a server started with its
// defaults, whose embedder is the hashing one: DefaultSearchOptions with the
// vector retriever weighted HashingVectorWeight. In-process benchmarks start
// from them to measure what the server does.
func HashingSearchOptions() SearchOptions {
	o := DefaultSearchOptions()
	o.VectorWeight = HashingVectorWeight
	return o
}
