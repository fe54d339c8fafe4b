// Package episodes turns client messages into episode records: validation with
// precise field errors, stable ids for idempotent re-posting, and the limits that
// keep one request from swamping the store. Chat-log readers and batch ingestion
// build on it.
package episodes
