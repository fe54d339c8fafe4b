// Package instrument wraps a graph store and a vector index to count their
// failures on Prometheus, by backend, operation and kind:
// kgmem_backend_errors_total{backend="neo4j", op="Apply", kind="unavailable"}.
// Client-level outcomes (invalid input, not found, conflict) and cancelled
// requests are not backend errors and are not counted.
package instrument
