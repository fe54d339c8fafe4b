package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode"
)

// EndpointRerank names the rerank endpoint in Stats.
const EndpointRerank = "rerank"

// RerankRequest is the body of POST /v1/rerank, the shape Cohere, Jina, vLLM
// and Hugging Face TEI's OpenAI-style servers accept.
type RerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n,omitempty"`
}

// RerankResult is one scored document of a rerank response.
type RerankResult struct {
	Index          int     `json:"index"`
	RelevanceScore float64 `json:"relevance_score"`
}

// RerankResponse is the body of a rerank answer: results best first.
type RerankResponse struct {
	ID      string         `json:"id"`
	Model   string         `json:"model"`
	Results []RerankResult `json:"results"`
	Usage   struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// WithRerankReply makes the rerank endpoint answer with reply's Status (an
// error) or after reply's Delay; the zero Reply scores normally.
func WithRerankReply(reply Reply) Option { return func(s *Server) { s.rerankReply = reply } }

// SetRerankReply replaces the rerank behaviour while the server runs.
func (s *Server) SetRerankReply(reply Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rerankReply = reply
}

// RerankScore is the fake model's relevance of a document to a query: the
// share of the query's distinct words (lower-cased letters and digits) that
// the document contains. Deterministic, so tests can predict the order.
func RerankScore(query, document string) float64 {
	q := fakeWords(query)
	if len(q) == 0 {
		return 0
	}
	d := fakeWords(document)
	n := 0
	for w := range q {
		if d[w] {
			n++
		}
	}
	return float64(n) / float64(len(q))
}

func fakeWords(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		set[w] = true
	}
	return set
}

func (s *Server) handleRerank(w http.ResponseWriter, r *http.Request) {
	var req RerankRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Query == "" {
		s.count(EndpointRerank, 0, 0)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "query", "a query and documents are required")
		return
	}
	s.mu.Lock()
	reply := s.rerankReply
	s.mu.Unlock()
	tokens := estimateTokens(req.Query)
	for _, d := range req.Documents {
		tokens += estimateTokens(d)
	}
	s.count(EndpointRerank, tokens, 0)
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, errorTypeFor(reply.Status), "", http.StatusText(reply.Status))
		return
	}
	resp := RerankResponse{ID: "rerank-" + shortHash(req.Query), Model: req.Model}
	for i, d := range req.Documents {
		resp.Results = append(resp.Results, RerankResult{Index: i, RelevanceScore: RerankScore(req.Query, d)})
	}
	// Best first, like the real services; ties keep document order.
	for i := 1; i < len(resp.Results); i++ {
		for j := i; j > 0 && resp.Results[j].RelevanceScore > resp.Results[j-1].RelevanceScore; j-- {
			resp.Results[j], resp.Results[j-1] = resp.Results[j-1], resp.Results[j]
		}
	}
	if req.TopN > 0 && req.TopN < len(resp.Results) {
		resp.Results = resp.Results[:req.TopN]
	}
	resp.Usage.TotalTokens = tokens
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}
