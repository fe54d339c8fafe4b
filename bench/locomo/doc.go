// Package locomo runs the LoCoMo long-term conversational memory benchmark
// (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM
// Agents", ACL 2024) against a kgmem server, and its plain BM25 baseline.
//
// Every turn of a conversation becomes one message (speaker as name, role
// "user", the session's date as timestamp, the dia_id as the client message
// id), one namespace per conversation ("bench/locomo/<conversation>") and one
// thread per session ("session_<N>"). Each question of categories 1–4 is then
// asked through search, and the metric is evidence recall@k: for each question
// the fraction of its evidence turns found among the first k episodes,
// averaged over questions (macro). That is the definition that reproduces the
// data set README's BM25 anchors; see Recall and the package README.
package locomo
