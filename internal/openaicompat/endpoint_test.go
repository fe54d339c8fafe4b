package openaicompat

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/retry"
	openai "github.com/sashabaranov/go-openai"
)

// TestEndpointConfig sends a chat call through each kind of endpoint and
// checks where it went and how it was authenticated, and that a 429's
// Retry-After reaches the caller's retry.Hint.
func TestEndpointConfig(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		w.Header().Set("retry-after-ms", "1500")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit"}}`))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name               string
		ep                 Endpoint
		path, query        string
		header, headerWant string
	}{
		{"OpenAI-style", Endpoint{BaseURL: srv.URL + "/v1/", APIKey: "k", Model: "gpt-3.5-turbo"},
			"/v1/chat/completions", "", "Authorization", "Bearer k"},
		{"Azure names the deployment exactly", Endpoint{BaseURL: srv.URL + "/", APIKey: "az", Model: "gpt-3.5-turbo", Azure: true, AzureAPIVersion: "2024-08-01-preview"},
			"/openai/deployments/gpt-3.5-turbo/chat/completions", "api-version=2024-08-01-preview", "api-key", "az"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, hint := retry.WithHint(context.Background())
			_, err := tc.ep.Client().CreateChatCompletion(ctx, openai.ChatCompletionRequest{
				Model: tc.ep.Model, Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}},
			})
			if err == nil {
				t.Fatal("a 429 answered without an error")
			}
			if got == nil || got.URL.Path != tc.path || got.URL.RawQuery != tc.query || got.Header.Get(tc.header) != tc.headerWant {
				t.Fatalf("request %v, want path %s, query %q and %s: %s", got, tc.path, tc.query, tc.header, tc.headerWant)
			}
			if hint.Get() != 1500*time.Millisecond {
				t.Errorf("Retry-After noted %v, want 1.5s", hint.Get())
			}
		})
	}
}
