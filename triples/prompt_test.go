package triples

import (
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
)

// The fake server's markers must keep matching the prompts.
func TestPromptMarkers(t *testing.T) {
	_, user, err := renderExtraction(kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{{Content: "hi"}}}, PromptFull)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(user, llmtest.ExtractionMarker) {
		t.Errorf("extraction prompt %q lacks the marker", user[:40])
	}
	if !strings.Contains(judgeUserPrefix, llmtest.JudgeMarker) {
		t.Errorf("judge prompt prefix %q lacks the marker", judgeUserPrefix)
	}
}
