// Package longmemeval runs the retrieval part of LongMemEval (Wu et al.,
// "LongMemEval: Benchmarking Chat Assistants on Long-Term Interactive
// Memory", ICLR 2025) against kgmem, beside a plain Okapi BM25 baseline over
// the same turns.
//
// Each question brings its own haystack of dated chat sessions. Every
// non-empty turn becomes one message of a namespace of the question's own
// (bench/longmemeval/<question_id>), one thread per session, with the
// session's date as the message time, the turn's role as role and speaker
// name, and "<session id>:<turn index>" as the message id. The question is
// then searched and the top k episodes are scored: turn recall@k (the
// fraction of the question's has_answer turns among them), and session
// recall_any@k / recall_all@k (whether any / every answer session has a turn
// among them). Abstention questions (ids ending in "_abs") are left out.
//
// A Harness ingests the questions once into embedded in-process stores and
// evaluates any number of search configurations on them, for
// cross-validation (CrossValidate); Run does the same once against a server.
package longmemeval
