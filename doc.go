// Package kgmem is the domain vocabulary of the kgmem memory engine: namespaces,
// entities, facts and episodes, the error kinds every layer shares, and the small
// interfaces (GraphStore, VectorIndex, Embedder, Extractor, Clock) that the engine
// depends on. Backends live in sub-packages and are wired together in cmd/server.
//
// An Episode is one message kept verbatim as provenance. A Fact is one
// entity–relation triple ("Bob — leads — ML team") with world time (ValidAt,
// InvalidAt: when it was true) and system time (CreatedAt, ExpiredAt: when kgmem
// believed it). A Fact contradicted by a newer one is invalidated, never silently
// deleted: it keeps answering history queries.
package kgmem
