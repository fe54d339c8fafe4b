package rerank_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/rerank"
)

func TestRerank(t *testing.T) {
	docs := []string{"Carol runs Orion.", "Bob leads the ML team.", "Bob likes jazz."}
	query := "who leads the ML team"
	tests := []struct {
		name      string
		reply     llmtest.Reply
		timeout   time.Duration
		wantErr   bool
		wantUnavl bool
	}{
		{"scores every document in order", llmtest.Reply{}, 0, false, false},
		{"server error is unavailable", llmtest.Status(http.StatusInternalServerError), 0, true, true},
		{"rate limit is unavailable", llmtest.Status(http.StatusTooManyRequests), 0, true, true},
		{"bad request is a plain error", llmtest.Status(http.StatusBadRequest), 0, true, false},
		{"deadline", llmtest.Reply{Delay: time.Minute}, 50 * time.Millisecond, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.WithAPIKey("k"), llmtest.WithRerankReply(tc.reply))
			c, err := rerank.New(rerank.Config{BaseURL: srv.URL(), Model: "rerank-test", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			scores, err := c.Rerank(ctx, query, docs)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Rerank = %v, want an error", scores)
				}
				if got := errors.Is(err, kgmem.ErrUnavailable); got != tc.wantUnavl {
					t.Errorf("errors.Is(%v, ErrUnavailable) = %v, want %v", err, got, tc.wantUnavl)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range docs {
				if want := llmtest.RerankScore(query, d); scores[i] != want {
					t.Errorf("score of %q = %v, want %v", d, scores[i], want)
				}
			}
			if srv.Stats(llmtest.EndpointRerank).Calls != 1 {
				t.Errorf("rerank calls = %d, want 1", srv.Stats(llmtest.EndpointRerank).Calls)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	for _, cfg := range []rerank.Config{{Model: "m"}, {BaseURL: "http://x"}} {
		if _, err := rerank.New(cfg); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("New(%+v) = %v, want ErrInvalid", cfg, err)
		}
	}
}
