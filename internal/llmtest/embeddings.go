package llmtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"

	openai "github.com/sashabaranov/go-openai"
)

// MaxEmbeddingDim bounds the dimensions a request may ask for.
const MaxEmbeddingDim = 4096

// Vector is the deterministic embedding the server returns for text: a
// feature-hashed bag of lower-cased words and character trigrams, L2-normalised.
// Equal texts give equal vectors and texts sharing words are close in cosine
// similarity, which is what resolution and retrieval tests need. Text without
// any feature maps to a fixed unit vector derived from its SHA-256.
func Vector(text string, dim int) []float32 {
	v := make([]float64, dim)
	add := func(feature string, weight float64) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		x := h.Sum64()
		idx := int(x % uint64(dim))
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[idx] += sign * weight
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		add("w:"+w, 1)
		padded := []rune(" " + w + " ")
		for i := 0; i+3 <= len(padded); i++ {
			add("t:"+string(padded[i:i+3]), 0.3)
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	if norm == 0 {
		sum := sha256.Sum256([]byte(text))
		for i := range v {
			v[i] = float64(sum[i%len(sum)]) - 127.5
			norm += v[i] * v[i]
		}
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dim)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input          json.RawMessage `json:"input"`
		Model          string          `json:"model"`
		EncodingFormat string          `json:"encoding_format"`
		Dimensions     int             `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.count(EndpointEmbeddings, 0, 0)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "could not parse request body: "+err.Error())
		return
	}
	inputs, err := parseInputs(req.Input)
	if err != nil {
		s.count(EndpointEmbeddings, 0, 0)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "input", err.Error())
		return
	}
	s.mu.Lock()
	dim := s.dim
	s.mu.Unlock()
	if req.Dimensions != 0 {
		if req.Dimensions < 1 || req.Dimensions > MaxEmbeddingDim {
			s.count(EndpointEmbeddings, 0, 0)
			writeError(w, http.StatusBadRequest, "invalid_request_error", "dimensions",
				fmt.Sprintf("dimensions must be between 1 and %d", MaxEmbeddingDim))
			return
		}
		dim = req.Dimensions
	}
	tokens := 0
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]item, len(inputs))
	for i, in := range inputs {
		tokens += estimateTokens(in)
		vec := Vector(in, dim)
		var emb any = vec
		if req.EncodingFormat == string(openai.EmbeddingEncodingFormatBase64) {
			var buf bytes.Buffer
			_ = binary.Write(&buf, binary.LittleEndian, vec) // writes to a bytes.Buffer never fail.
			emb = base64.StdEncoding.EncodeToString(buf.Bytes())
		}
		data[i] = item{Object: "embedding", Index: i, Embedding: emb}
	}
	s.count(EndpointEmbeddings, tokens, 0)
	model := req.Model
	if model == "" {
		model = "text-embedding-3-small"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   data,
		"model":  model,
		"usage":  map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// parseInputs accepts every input shape of the embeddings API: a string, an
// array of strings, an array of token ids, or an array of token-id arrays
// (token ids are embedded through their decimal text).
func parseInputs(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err == nil {
		if len(many) == 0 {
			return nil, fmt.Errorf("input must not be empty")
		}
		return many, nil
	}
	var toks []int
	if err := json.Unmarshal(raw, &toks); err == nil {
		return []string{fmt.Sprint(toks)}, nil
	}
	var tokLists [][]int
	if err := json.Unmarshal(raw, &tokLists); err == nil {
		out := make([]string, len(tokLists))
		for i, t := range tokLists {
			out[i] = fmt.Sprint(t)
		}
		return out, nil
	}
	return nil, fmt.Errorf("input must be a string, an array of strings or token arrays")
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:24]
}
