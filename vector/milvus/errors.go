package milvus

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kgmem/kgmem"
)

// wrap adds the operation to err and marks connectivity failures with
// kgmem.ErrUnavailable, so callers can retry them and tell them from bad requests.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if unavailable(err) {
		return fmt.Errorf("milvus %s: %w: %w", op, kgmem.ErrUnavailable, err)
	}
	return fmt.Errorf("milvus %s: %w", op, err)
}

// unavailable reports whether err means the server could not be reached (as
// opposed to a request it refused). A caller's own cancellation is not.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrClientNotReady) {
		return true
	}
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		switch se.GRPCStatus().Code() {
		case codes.Unavailable, codes.DeadlineExceeded:
			return true
		}
	}
	// The SDK flattens some transport errors into plain text.
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "transport is closing")
}

// statusErr is the error a Milvus response status reports (nil on success),
// as the SDK reports it for the requests it sends.
func statusErr(s *commonpb.Status) error {
	if s == nil {
		return client.ErrStatusNil
	}
	if s.GetErrorCode() != commonpb.ErrorCode_Success {
		reason := s.GetReason()
		if reason == "" {
			reason = "Service failed"
		}
		return client.ErrServiceFailed(errors.New(reason))
	}
	return nil
}
