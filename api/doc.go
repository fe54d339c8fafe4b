// Package api serves the kgmem REST API on echo: strict JSON decoding with
// field-precise errors, application/problem+json for every failure, and the
// OpenAPI 3 document at /openapi.json. No client mistake yields a 5xx.
package api
