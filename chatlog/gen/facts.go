package gen

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Fact is a fact a generated message states, as a scripted test LLM reports it.
type Fact struct {
	Subject, Predicate, Object string
	// Message is the 1-based number of the message in the extraction prompt.
	Message int
}

var factAnywhere = regexp.MustCompile(`([A-Z][a-z]+ [A-Z][a-z]+) (works on|lives in|enjoys) ([A-Za-z ]+?)\.`)

// PromptFacts reads the facts of generated messages out of an extraction
// prompt's user message (the first line, then a JSON object whose
// "messages" carry n and content), so a scripted LLM answers every batch
// as a perfect extractor would.
func PromptFacts(userMessage string) []Fact {
	_, payload, ok := strings.Cut(userMessage, "\n")
	if !ok {
		return nil
	}
	var p struct {
		Messages []struct {
			N       int    `json:"n"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(payload), &p) != nil {
		return nil
	}
	var out []Fact
	for _, m := range p.Messages {
		if g := factAnywhere.FindStringSubmatch(m.Content); g != nil {
			out = append(out, Fact{Subject: g[1], Predicate: strings.ReplaceAll(g[2], " ", "_"), Object: g[3], Message: m.N})
		}
	}
	return out
}
