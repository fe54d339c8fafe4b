package neo4j

// stablePlan prefixes the hot queries whose plan is the same whatever the
// data: point lookups through a unique constraint or a composite index,
// pinned by hints where the planner has a choice. Neo4j replans a cached
// query when the label and index statistics it was planned with drift
// (cypher.statistics_divergence_threshold), which a memory server's steady
// creation and purging of namespaces does constantly: measured under the
// 16-client load, the thread-neighbour query spent 14.5 ms compiling for
// 3.3 ms executing, per call. With replan=skip a cached plan is reused.
const stablePlan = "CYPHER replan=skip "
