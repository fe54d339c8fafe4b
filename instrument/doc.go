// Package instrument wraps a graph store and a vector index to measure them
// on Prometheus, by backend and operation: how many calls they answered
// and how long each took (kgmem_backend_call_duration_seconds{backend="neo4j",
// op="SearchText"}), and which failed, by kind
// (kgmem_backend_errors_total{backend="neo4j", op="Apply", kind="unavailable"}).
// Client-level outcomes (invalid input, not found, conflict) and cancelled
// requests are not backend errors and are not counted as failures.
package instrument
