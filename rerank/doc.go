// Package rerank is a kgmem.Reranker over an HTTP rerank endpoint in the
// shape Cohere, Jina, vLLM (/v1/rerank) and Hugging Face TEI's OpenAI-style
// servers share: POST {model, query, documents} and get back
// {results: [{index, relevance_score}]} (New), or over an OpenAI-compatible
// chat model that grades every passage in one call (NewChat). The search
// engine calls it on its best candidates under a deadline and keeps the
// fused order, with a warning, when it fails.
package rerank
