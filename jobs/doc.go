// Package jobs runs background ingestion: POST /v1/memories with
// "mode": "async" stores the request as a durable job and answers at once;
// a bounded pool of workers runs the jobs through the engine.
//
// Jobs are kept in kgmem.JobRecords: jobs.db in the data directory by
// default (OpenFile), or graph/neo4j's records, which every server on the
// database shares. Each unfinished job is held by one server (its stable id
// in DataDir/server-id) under a lease it renews every third of the lease; a
// server that restarts takes its own jobs back at once, one that stops
// releases them, and one that dies leaves them to whichever server finds
// their lease run out first. A job is run again after a crash or a
// takeover, exactly once in effect: every message has an id fixed when the
// job was accepted, so messages already stored are recognised by the engine
// and nothing is written twice.
//
// Messages of one thread that arrive within the debounce window are
// coalesced into one engine call, hence one extraction: fewer LLM calls for
// chatty clients (LangMem's "delayed reflection"). The jobs of one thread run
// one group at a time, in the order they were accepted.
package jobs
