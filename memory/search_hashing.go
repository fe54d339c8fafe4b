package memory

// HashingVectorWeight is the vector retriever's weight in the fusion when
// the embedder is the lexical hashing one (embed.Hashing), as the server
// sets it without the static model. That embedder finds what BM25 finds,
// ranked worse, so it weighs little (chosen by bench cv).
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
