package rerank_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/rerank"
	openai "github.com/sashabaranov/go-openai"
)

func TestChatRerank(t *testing.T) {
	docs := []string{"Carol runs Orion.", "Bob leads the ML team.\nSince March."}
	tests := []struct {
		name      string
		reply     llmtest.Reply
		want      []float64
		wantErr   bool
		wantUnavl bool
	}{
		{"grades", llmtest.Text(`{"scores": [1, 9]}`), []float64{1, 9}, false, false},
		{"text around the JSON", llmtest.Text("Here you go: {\"scores\": [0, 7.5]} done"), []float64{0, 7.5}, false, false},
		{"wrong count", llmtest.Text(`{"scores": [3]}`), nil, true, false},
		{"not JSON", llmtest.Text(`nine and one`), nil, true, false},
		{"server error", llmtest.Status(http.StatusServiceUnavailable), nil, true, true},
		{"bad request", llmtest.Status(http.StatusBadRequest), nil, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var prompt string
			srv := llmtest.New(t, llmtest.WithResponder(func(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
				prompt = llmtest.LastUserMessage(req)
				return tc.reply, nil
			}))
			c, err := rerank.NewChat(rerank.Config{BaseURL: srv.URL(), Model: "gpt-test"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Rerank(t.Context(), "who leads the ML team", docs)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Rerank = %v, want an error", got)
				}
				if errors.Is(err, kgmem.ErrUnavailable) != tc.wantUnavl {
					t.Errorf("errors.Is(%v, ErrUnavailable) = %v, want %v", err, !tc.wantUnavl, tc.wantUnavl)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Rerank = %v, want %v", got, tc.want)
			}
			if !strings.Contains(prompt, "[1] Bob leads the ML team. Since March.") || !strings.Contains(prompt, "Query: who leads the ML team") {
				t.Errorf("prompt = %q, want the query and numbered one-line passages", prompt)
			}
		})
	}
}
