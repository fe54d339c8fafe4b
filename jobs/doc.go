// Package jobs runs background ingestion: POST /v1/memories with
// "mode": "async" stores the request as a durable job (SQLite, in the data
// directory) and answers at once; a bounded pool of workers runs the jobs
// through the engine. Jobs queued or running when the process stopped are
// run again at the next start, exactly once in effect: every message has an
// id fixed when the job was accepted, so a job that had already been stored
// is recognised by the engine and nothing is written twice.
//
// Messages of one thread that arrive within the debounce window are
// coalesced into one engine call, hence one extraction: fewer LLM calls for
// chatty clients (LangMem's "delayed reflection"). The jobs of one thread run
// one group at a time, in the order they were accepted.
package jobs
