package neo4j

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestRetryCause checks which failures another attempt is made for: a
// managed transaction's are reported inside the driver's
// TransactionExecutionLimit, an auto-commit query's as they are.
func TestRetryCause(t *testing.T) {
	lost := &neo4j.ConnectivityError{Inner: io.EOF}
	deadlock := &neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected"}
	syntax := &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError"}
	wrapped := fmt.Errorf("collect: %w", lost)
	for _, tc := range []struct {
		name string
		err  error
		want error // nil: final
	}{
		{"managed, the last attempt's error", &neo4j.TransactionExecutionLimit{Errors: []error{deadlock, lost}}, lost},
		{"managed, no attempt recorded", &neo4j.TransactionExecutionLimit{Cause: "timeout"}, nil},
		{"auto-commit, connection lost", lost, lost},
		{"auto-commit, connection lost, wrapped", wrapped, wrapped},
		{"auto-commit, transient", deadlock, deadlock},
		{"auto-commit, client error", syntax, nil},
		{"other", errors.New("boom"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retryCause(tc.err); got != tc.want {
				t.Errorf("retryCause(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
