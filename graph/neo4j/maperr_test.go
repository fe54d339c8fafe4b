package neo4j

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestMapErr checks how driver errors map to kgmem's kinds, wrapped or not:
// a connection lost inside a transaction function reaches mapErr wrapped by
// the query that met it ("write episodes: ConnectivityError: EOF"), and was
// answered 500 where a lost Neo4j must be a 503.
func TestMapErr(t *testing.T) {
	lost := &neo4j.ConnectivityError{Inner: io.EOF}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"connectivity", lost, kgmem.ErrUnavailable},
		{"connectivity wrapped by a query", fmt.Errorf("write episodes: %w", lost), kgmem.ErrUnavailable},
		{"retries exhausted", &neo4j.TransactionExecutionLimit{Cause: "timeout"}, kgmem.ErrUnavailable},
		{"transient", &neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected"}, kgmem.ErrUnavailable},
		{"deadline", fmt.Errorf("read: %w", context.DeadlineExceeded), context.DeadlineExceeded},
		{"not found", fmt.Errorf("x: %w", kgmem.ErrNotFound), kgmem.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mapErr(tc.err); !errors.Is(got, tc.want) {
				t.Errorf("mapErr(%v) = %v, want an error wrapping %v", tc.err, got, tc.want)
			}
		})
	}
	if got := mapErr(&neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}); errors.Is(got, kgmem.ErrUnavailable) {
		t.Errorf("a syntax error maps to %v, want no outage", got)
	}
}
