// Package importer ingests a chat log into kgmem in bulk: records from a
// chatlog.Reader are grouped into per-thread batches, the threads run
// concurrently (the batches of one thread in order, on one worker), LLM
// requests and tokens per minute are rate limited, bad records go to an
// errors file and never stop the run, and a checkpoint file records each
// thread's progress durably so a killed run resumes where it stopped.
//
// The destination is a Sink: the engine in-process (*memory.Engine) or a
// running server over HTTP (HTTPSink). Either way ingestion is idempotent by
// message id, so the records a crash left between "written" and
// "checkpointed" are recognised and stored once.
package importer
