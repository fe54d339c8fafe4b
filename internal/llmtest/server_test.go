package llmtest

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

func client(s *Server) *openai.Client {
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = s.URL()
	return openai.NewClientWithConfig(cfg)
}

func chat(ctx context.Context, c *openai.Client, user string) (openai.ChatCompletionResponse, error) {
	return c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: "m1",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "system prompt"},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	})
}

func TestChatReplies(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		wantStatus int
		wantText   string
		wantFinish openai.FinishReason
		wantTool   string
	}{
		{name: "text", reply: Text(`{"ok":true}`), wantText: `{"ok":true}`, wantFinish: openai.FinishReasonStop},
		{name: "truncated", reply: Truncated(`{"facts":[{"a":1}]}`, 8), wantText: `{"facts"`, wantFinish: openai.FinishReasonLength},
		{name: "tool call", reply: ToolCall("record", `{"x":1}`), wantFinish: openai.FinishReasonToolCalls, wantTool: "record"},
		{name: "rate limited", reply: RateLimited(2 * time.Second), wantStatus: 429},
		{name: "server error", reply: Status(500), wantStatus: 500},
		{name: "unavailable", reply: Status(503), wantStatus: 503},
		{name: "bad request", reply: Reply{Status: 400, ErrorMessage: "response_format json_schema is not supported", ErrorParam: "response_format"}, wantStatus: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, WithResponder(Sequence(tt.reply)))
			resp, err := chat(t.Context(), client(s), "hello there")
			if tt.wantStatus != 0 {
				var apiErr *openai.APIError
				if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != tt.wantStatus {
					t.Fatalf("err = %v, want APIError with status %d", err, tt.wantStatus)
				}
				if s.ChatCalls() != 1 {
					t.Fatalf("calls = %d, want 1", s.ChatCalls())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Object != "chat.completion" || resp.ID == "" || resp.Created == 0 || resp.Model != "m1" {
				t.Errorf("envelope = %+v", resp)
			}
			ch := resp.Choices[0]
			if ch.Message.Content != tt.wantText || ch.FinishReason != tt.wantFinish {
				t.Errorf("content %q finish %q, want %q %q", ch.Message.Content, ch.FinishReason, tt.wantText, tt.wantFinish)
			}
			if tt.wantTool != "" && (len(ch.Message.ToolCalls) != 1 || ch.Message.ToolCalls[0].Function.Name != tt.wantTool) {
				t.Errorf("tool calls = %+v", ch.Message.ToolCalls)
			}
			wantPrompt := estimateTokens("system prompt") + estimateTokens("hello there")
			if resp.Usage.PromptTokens != wantPrompt || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
				t.Errorf("usage = %+v, want prompt %d", resp.Usage, wantPrompt)
			}
			st := s.Stats(EndpointChat)
			if st.Calls != 1 || st.PromptTokens != resp.Usage.PromptTokens || st.CompletionTokens != resp.Usage.CompletionTokens {
				t.Errorf("stats = %+v, usage %+v", st, resp.Usage)
			}
		})
	}
}

func TestRetryAfterHeader(t *testing.T) {
	s := New(t, WithResponder(Sequence(RateLimited(1500*time.Millisecond))))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/chat/completions",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d Retry-After %q, want 429 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestScriptMatchesLastUserMessage(t *testing.T) {
	s := New(t, WithScript(
		On("ramen", Text("first ramen"), Text("second ramen")),
		On("pasta", Text("pasta")),
	))
	c := client(s)
	for _, tc := range []struct{ user, want string }{
		{"I love ramen", "first ramen"},
		{"I like pasta", "pasta"},
		{"ramen again", "second ramen"},
		{"ramen thrice", "second ramen"},
	} {
		resp, err := chat(t.Context(), c, tc.user)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Choices[0].Message.Content; got != tc.want {
			t.Errorf("%q → %q, want %q", tc.user, got, tc.want)
		}
	}
	if _, err := chat(t.Context(), c, "nothing matches"); err == nil {
		t.Fatal("unscripted message: want an error")
	}
	if n := len(s.Requests()); n != 5 {
		t.Errorf("recorded %d requests, want 5", n)
	}
}

func TestDelayHonoursClientCancel(t *testing.T) {
	s := New(t, WithResponder(Sequence(Reply{Content: "late", Delay: 5 * time.Second})))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := chat(ctx, client(s), "x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatal("client waited for the full delay")
	}
}

func TestEmbeddings(t *testing.T) {
	s := New(t, WithEmbeddingDim(32))
	c := client(s)
	tests := []struct {
		name   string
		req    openai.EmbeddingRequest
		wantN  int
		wantDi int
	}{
		{name: "default dim", req: openai.EmbeddingRequest{Input: []string{"Bob leads the ML team", "bob leads the ml team"}, Model: openai.SmallEmbedding3}, wantN: 2, wantDi: 32},
		{name: "dimensions honoured", req: openai.EmbeddingRequest{Input: "hello", Model: openai.SmallEmbedding3, Dimensions: 8}, wantN: 1, wantDi: 8},
		{name: "base64", req: openai.EmbeddingRequest{Input: []string{"hello"}, Model: openai.SmallEmbedding3, EncodingFormat: openai.EmbeddingEncodingFormatBase64}, wantN: 1, wantDi: 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.CreateEmbeddings(t.Context(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Data) != tt.wantN {
				t.Fatalf("got %d embeddings, want %d", len(resp.Data), tt.wantN)
			}
			for _, d := range resp.Data {
				if len(d.Embedding) != tt.wantDi {
					t.Fatalf("dim %d, want %d", len(d.Embedding), tt.wantDi)
				}
				var n float64
				for _, x := range d.Embedding {
					n += float64(x) * float64(x)
				}
				if math.Abs(n-1) > 1e-4 {
					t.Errorf("norm² = %v, want 1", n)
				}
			}
			if resp.Usage.PromptTokens == 0 {
				t.Error("usage not reported")
			}
		})
	}
	if s.Stats(EndpointEmbeddings).Calls != len(tests) {
		t.Errorf("embedding calls = %d", s.Stats(EndpointEmbeddings).Calls)
	}
}

func TestVectorSimilarity(t *testing.T) {
	cos := func(a, b []float32) float64 {
		var d float64
		for i := range a {
			d += float64(a[i]) * float64(b[i])
		}
		return d
	}
	a, b := Vector("Bob leads the ML team", 64), Vector("Bob leads the ML team", 64)
	if cos(a, b) < 0.9999 {
		t.Fatal("equal texts must give equal vectors")
	}
	near := cos(Vector("Alice likes ramen", 64), Vector("alice likes miso ramen", 64))
	far := cos(Vector("Alice likes ramen", 64), Vector("quarterly revenue report", 64))
	if near <= far {
		t.Errorf("related texts %v should be closer than unrelated %v", near, far)
	}
}

func TestModelsAndAuth(t *testing.T) {
	s := New(t, WithModels("a", "b"), WithAPIKey("test-key"))
	list, err := client(s).ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 2 || list.Models[0].ID != "a" || list.Models[1].Object != "model" {
		t.Errorf("models = %+v", list.Models)
	}
	cfg := openai.DefaultConfig("wrong")
	cfg.BaseURL = s.URL()
	var apiErr *openai.APIError
	if _, err := openai.NewClientWithConfig(cfg).ListModels(t.Context()); !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 401 {
		t.Fatalf("wrong key: err = %v, want 401", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New(t, WithResponder(Sequence(Text("ok"))))
	c := client(s)
	var wg sync.WaitGroup
	const n = 16
	for range n {
		wg.Go(func() {
			if _, err := chat(t.Context(), c, "hi"); err != nil {
				t.Error(err)
			}
			if _, err := c.CreateEmbeddings(t.Context(), openai.EmbeddingRequest{Input: "hi", Model: openai.SmallEmbedding3}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if s.ChatCalls() != n || s.Stats(EndpointEmbeddings).Calls != n {
		t.Errorf("chat %d embeddings %d, want %d each", s.ChatCalls(), s.Stats(EndpointEmbeddings).Calls, n)
	}
}

func TestAzureRoutes(t *testing.T) {
	s := New(t, WithResponder(Sequence(Text("hi"))), WithAPIKey("azure-key"))
	cfg := openai.DefaultAzureConfig("azure-key", s.AzureURL())
	c := openai.NewClientWithConfig(cfg)
	resp, err := c.CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{Model: "my-deployment",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != "hi" || resp.Model != "my-deployment" {
		t.Errorf("resp = %+v", resp)
	}
	emb, err := c.CreateEmbeddings(t.Context(), openai.EmbeddingRequest{Input: "x", Model: "my-embeddings"})
	if err != nil || len(emb.Data) != 1 {
		t.Fatalf("embeddings: %v %+v", err, emb)
	}
}
