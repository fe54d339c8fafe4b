package milvus

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kgmem/kgmem"
)

func TestWrapMarksUnavailable(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"grpc unavailable", status.Error(codes.Unavailable, "connection refused"), true},
		{"grpc deadline", status.Error(codes.DeadlineExceeded, "slow"), true},
		{"wrapped grpc unavailable", fmt.Errorf("call: %w", status.Error(codes.Unavailable, "x")), true},
		{"deadline exceeded", context.DeadlineExceeded, true},
		{"client not ready", client.ErrClientNotReady, true},
		{"caller cancelled", context.Canceled, false},
		{"server refused request", status.Error(codes.InvalidArgument, "bad expr"), false},
		{"plain error", errors.New("collection not loaded"), false},
	}
	for _, tt := range tests {
		err := wrap("search", tt.err)
		if got := errors.Is(err, kgmem.ErrUnavailable); got != tt.unavailable {
			t.Errorf("%s: errors.Is(wrap(%v), ErrUnavailable) = %v, want %v", tt.name, tt.err, got, tt.unavailable)
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: wrap lost the cause %v", tt.name, tt.err)
		}
	}
	if wrap("x", nil) != nil {
		t.Error("wrap(nil) != nil")
	}
}
