package extract_test

import (
	"strings"
	"testing"

	"github.com/kgmem/kgmem/bench/extract"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/triples"
	openai "github.com/sashabaranov/go-openai"
)

func TestScore(t *testing.T) {
	f := func(s, p, o string) extract.Fact { return extract.Fact{Subject: s, Predicate: p, Object: o} }
	tests := []struct {
		name                  string
		expected, got         []extract.Fact
		matched, missed, more int
		pairs                 int
	}{
		{"exact", []extract.Fact{f("Bob", "leads", "ML team")}, []extract.Fact{f("Bob", "leads", "ML team")}, 1, 0, 0, 1},
		{"names and predicate normalised", []extract.Fact{f("Bob", "leads", "ML team")}, []extract.Fact{f(" bob ", "LEADS", "the ML Team")}, 1, 0, 0, 1},
		{"a synonym", []extract.Fact{f("Maria", "lives in", "Lisbon")}, []extract.Fact{f("Maria", "resides_in", "Lisbon")}, 1, 0, 0, 1},
		{"a passive", []extract.Fact{f("Sarah", "manages", "Jun")}, []extract.Fact{f("Jun", "is managed by", "Sarah")}, 1, 0, 0, 1},
		{"is_ dropped", []extract.Fact{f("Anika", "is sister of", "Priya")}, []extract.Fact{f("Anika", "sister_of", "Priya")}, 1, 0, 0, 1},
		{"a negation", []extract.Fact{f("Lea", "not likes", "coffee")}, []extract.Fact{f("Lea", "doesn't like", "coffee")}, 1, 0, 0, 1},
		{"wrong object", []extract.Fact{f("Bob", "leads", "ML team")}, []extract.Fact{f("Bob", "leads", "NLP team")}, 0, 1, 1, 0},
		{"each expected matched once", []extract.Fact{f("Bob", "leads", "ML team")}, []extract.Fact{f("Bob", "leads", "ML team"), f("Bob", "leads", "ML team")}, 1, 0, 1, 1},
		{"nothing expected", nil, []extract.Fact{f("Ana", "says", "hi")}, 0, 0, 1, 0},
		{"another predicate: the pair still counts", []extract.Fact{f("Caroline", "volunteers at", "animal shelter")}, []extract.Fact{f("Caroline", "volunteered", "the animal shelter")}, 0, 1, 1, 1},
		{"reversed subject and object", []extract.Fact{f("Sarah Chen", "manages", "Jun")}, []extract.Fact{f("Jun", "manages", "Sarah Chen")}, 0, 1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, missed, extra := extract.Score(tc.expected, tc.got)
			if m != tc.matched || len(missed) != tc.missed || len(extra) != tc.more {
				t.Errorf("matched %d missed %v extra %v; want %d, %d, %d", m, missed, extra, tc.matched, tc.missed, tc.more)
			}
			if p := extract.ScorePairs(tc.expected, tc.got); p != tc.pairs {
				t.Errorf("pairs matched %d, want %d", p, tc.pairs)
			}
		})
	}
}

// TestRunScoresAModel runs the cases through the extractor against the
// scripted fake endpoint: answering each case with its expected triples
// scores 1, answering nothing scores 0 recall, and usage is counted.
func TestRunScoresAModel(t *testing.T) {
	cases, err := extract.Cases()
	if err != nil || len(cases) < 10 {
		t.Fatalf("cases: %d, %v", len(cases), err)
	}
	perfect := func(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
		user := llmtest.LastUserMessage(req)
		for _, c := range cases {
			if strings.Contains(user, c.Messages[0].Content) {
				var facts []llmtest.Fact
				var ents []llmtest.Entity
				for _, f := range c.Expected {
					facts = append(facts, llmtest.Fact{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Text: f.Subject + " " + f.Predicate + " " + f.Object + "."})
					ents = append(ents, llmtest.Entity{Name: f.Subject, Type: "Other"}, llmtest.Entity{Name: f.Object, Type: "Other"})
				}
				return llmtest.Text(llmtest.ExtractionJSON(ents, facts)), nil
			}
		}
		return llmtest.Text(llmtest.ExtractionJSON(nil, nil)), nil
	}
	for _, tc := range []struct {
		name      string
		responder llmtest.Responder
		recall    float64
	}{
		{"a perfect model", perfect, 1},
		{"a model that finds nothing", func(openai.ChatCompletionRequest) (llmtest.Reply, error) {
			return llmtest.Text(llmtest.ExtractionJSON(nil, nil)), nil
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.New(t, llmtest.WithResponder(tc.responder))
			x, err := triples.NewExtractor(triples.LLMConfig{BaseURL: s.URL(), Model: "fake", MinBackoff: 1, MaxBackoff: 1})
			if err != nil {
				t.Fatal(err)
			}
			rep := extract.Run(t.Context(), x, cases)
			if rep.Recall != tc.recall || rep.Failed != 0 || rep.Calls != len(cases) || rep.PromptTokens == 0 {
				t.Errorf("recall %.2f (want %.2f), failed %d, calls %d (want %d), prompt tokens %d", rep.Recall, tc.recall, rep.Failed, rep.Calls, len(cases), rep.PromptTokens)
			}
			if tc.recall == 1 && (rep.Precision != 1 || rep.F1 != 1) {
				t.Errorf("precision %.2f F1 %.2f, want 1", rep.Precision, rep.F1)
			}
		})
	}
}
