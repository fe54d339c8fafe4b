// Package faulttest holds kgmem's server-level fault tests: real backends,
// loopback only, bounded in time. A backend outage is made with
// internal/faultproxy between the server and the shared Neo4j (the shared
// servers are never stopped); a crash is a kill -9 of a real server process.
package faulttest
