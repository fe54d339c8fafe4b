package triples

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	openai "github.com/sashabaranov/go-openai"
)

func TestBackoffBounds(t *testing.T) {
	c := &llmClient{cfg: LLMConfig{MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}}
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{0, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 0, 200 * time.Millisecond, 400 * time.Millisecond},
		{10, 0, 500 * time.Millisecond, time.Second},
		{60, 0, 500 * time.Millisecond, time.Second},
		{0, 300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond},
		{0, time.Hour, time.Second, time.Second},
	}
	for _, tt := range tests {
		for range 20 {
			if d := c.backoff(tt.attempt, tt.retryAfter); d < tt.lo || d > tt.hi {
				t.Fatalf("backoff(%d, %v) = %v, want in [%v, %v]", tt.attempt, tt.retryAfter, d, tt.lo, tt.hi)
			}
		}
	}
}

func TestUnsupportedFormat(t *testing.T) {
	tests := []struct {
		msg, param string
		want       bool
	}{
		{"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", "", true},
		{"anything", "response_format", true},
		{"json_schema is unsupported by this server", "", true},
		{"Unrecognized request argument supplied: response_format", "", true},
		{"This model's maximum context length is 8192 tokens.", "", false},
		{"Invalid API key", "", false},
	}
	for _, tt := range tests {
		if got := unsupportedFormat(tt.msg, tt.param); got != tt.want {
			t.Errorf("unsupportedFormat(%q, %q) = %v, want %v", tt.msg, tt.param, got, tt.want)
		}
	}
}

func TestIntegratorJudgeFailureFallsBackToAdd(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(llmtest.Sequence(llmtest.Status(500))))
	cfg := testConfig(s)
	cfg.MaxRetries = 1
	st := newMemStore()
	clock := &fixedClock{t: t0}
	in := NewIntegrator(st, IntegratorOptions{Clock: clock, LLM: &cfg})
	ns := kgmem.Namespace("judge")
	ingest(t, in, st, ns, "m1", "Frank", "I drive a Tesla", t0, nil, tr("Frank", "drives", "Tesla"))
	if s.ChatCalls() != 0 {
		t.Fatalf("no related facts: the judge must not be called (calls %d)", s.ChatCalls())
	}
	clock.t = t0.Add(time.Hour)
	res := ingest(t, in, st, ns, "m2", "Frank", "I drive a Volvo", clock.t, nil, tr("Frank", "drives", "Volvo"))
	if ops(res) != "added" || !strings.Contains(res.FactChanges[0].Reason, "LLM decision unavailable") {
		t.Errorf("changes = %+v", res.FactChanges)
	}
	if res.Usage.Calls != 2 || s.ChatCalls() != 2 {
		t.Errorf("usage %+v, server calls %d; want 2 attempts", res.Usage, s.ChatCalls())
	}
	assertSet(t, "current", graphFacts(t, st, ns, true), "Frank drives Tesla", "Frank drives Volvo")
}

func TestIntegratorJudgeUpdateAndBadAnswers(t *testing.T) {
	s := llmtest.New(t)
	cfg := testConfig(s)
	st := newMemStore()
	clock := &fixedClock{t: t0}
	in := NewIntegrator(st, IntegratorOptions{Clock: clock, LLM: &cfg})
	ns := kgmem.Namespace("judge")
	ingest(t, in, st, ns, "m1", "Ann", "x", t0, nil,
		kgmem.Triple{Subject: "Ann", Predicate: "plays", Object: "piano", Text: "Ann plays the piano."},
		kgmem.Triple{Subject: "Ann", Predicate: "speaks", Object: "French", Text: "Ann speaks French."})
	fs, _ := st.ListFacts(context.Background(), ns, kgmem.FactFilter{Predicate: "plays"})
	piano := fs[0]
	// Question 1 is updated; question 2 names a fact that was not offered (ignored → added).
	s.SetResponder(llmtest.Sequence(llmtest.Text(`{"entities":[],"facts":[` +
		`{"id":1,"decision":"update","target_ids":["` + piano.ID + `"],"reason":"more precise"},` +
		`{"id":2,"decision":"invalidate","target_ids":["fact_does_not_exist"],"reason":"bogus"},` +
		`{"id":7,"decision":"duplicate","target_ids":[],"reason":"no such question"}]}`)))
	clock.t = t0.Add(time.Hour)
	res := ingest(t, in, st, ns, "m2", "Ann", "y", clock.t, nil,
		kgmem.Triple{Subject: "Ann", Predicate: "plays", Object: "piano", Text: "Ann plays the piano every evening."},
		kgmem.Triple{Subject: "Ann", Predicate: "plays", Object: "jazz piano", Text: "Ann plays jazz piano."},
		kgmem.Triple{Subject: "Ann", Predicate: "speaks", Object: "German", Text: "Ann speaks German."})
	// Triple 1 is a rule update (richer text); 2 is a rule refinement; 3 goes to the judge as question 1.
	if s.ChatCalls() != 1 {
		t.Fatalf("judge calls = %d, want 1", s.ChatCalls())
	}
	if ops(res) != "updated,updated,added" {
		t.Errorf("ops = %s (%+v)", ops(res), res.FactChanges)
	}
	assertSet(t, "current", graphFacts(t, st, ns, true), "Ann plays jazz piano", "Ann speaks French", "Ann speaks German")
}

func TestIntegratorInvalidLLMConfig(t *testing.T) {
	in := NewIntegrator(newMemStore(), IntegratorOptions{LLM: &LLMConfig{Mode: "xml"}})
	_, err := in.Integrate(context.Background(), IntegrateRequest{Namespace: "x"})
	if !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("err = %v, want ErrInvalid", err)
	}
}

func TestTemperatureDroppedWhenRejected(t *testing.T) {
	s := llmtest.New(t, llmtest.WithResponder(func(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
		if req.Temperature != 0 {
			return llmtest.Reply{Status: 400, ErrorParam: "temperature",
				ErrorMessage: "Unsupported value: 'temperature' does not support 1e-45 with this model. Only the default (1) value is supported."}, nil
		}
		return llmtest.Text(bobAnswer), nil
	}))
	x := newTestExtractor(t, s)
	for i := range 2 {
		ex, err := x.Extract(t.Context(), kgmem.ExtractRequest{Namespace: "n", Messages: []kgmem.Episode{msg("n", "1", "A", "x", t0)}})
		if err != nil || len(ex.Triples) != 1 {
			t.Fatalf("call %d: %v %+v", i, err, ex)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Temperature <= 0 || reqs[0].Temperature > 1e-6 || reqs[1].Temperature != 0 || reqs[2].Temperature != 0 {
		t.Errorf("temperatures sent: %v", func() (out []float32) {
			for _, r := range reqs {
				out = append(out, r.Temperature)
			}
			return
		}())
	}
}

func TestIntegratorJudgeUpdateRewritesInPlace(t *testing.T) {
	s := llmtest.New(t)
	cfg := testConfig(s)
	st := newMemStore()
	clock := &fixedClock{t: t0}
	in := NewIntegrator(st, IntegratorOptions{Clock: clock, LLM: &cfg})
	ns := kgmem.Namespace("judge")
	ingest(t, in, st, ns, "m1", "Ann", "x", t0, nil, kgmem.Triple{Subject: "Ann", Predicate: "plays", Object: "piano", Text: "Ann plays the piano."})
	fs, _ := st.ListFacts(context.Background(), ns, kgmem.FactFilter{})
	s.SetResponder(llmtest.Sequence(llmtest.Text(llmtest.JudgeJSON(nil,
		[]llmtest.FactDecision{{Decision: "update", TargetIDs: []string{fs[0].ID}, Reason: "same habit, more precise"}}))))
	clock.t = t0.Add(time.Hour)
	res := ingest(t, in, st, ns, "m2", "Ann", "y", clock.t, nil,
		kgmem.Triple{Subject: "Ann", Predicate: "performs on", Object: "piano", Text: "Ann performs on the piano every Friday."})
	if ops(res) != "updated" || res.FactChanges[0].Fact.ID != fs[0].ID || !strings.Contains(res.FactChanges[0].Reason, "more precise") {
		t.Fatalf("changes = %+v", res.FactChanges)
	}
	got, _ := st.ListFacts(context.Background(), ns, kgmem.FactFilter{IncludeExpired: true})
	if len(got) != 1 || got[0].Predicate != "performs_on" || got[0].Text != "Ann performs on the piano every Friday." || len(got[0].Episodes) != 2 {
		t.Errorf("facts = %+v", got)
	}
	// With updates disabled the same answer adds the fact instead.
	st2 := newMemStore()
	in2 := NewIntegrator(st2, IntegratorOptions{Clock: clock, LLM: &cfg})
	ingest(t, in2, st2, ns, "m1", "Ann", "x", t0, nil, kgmem.Triple{Subject: "Ann", Predicate: "plays", Object: "piano"})
	fs2, _ := st2.ListFacts(context.Background(), ns, kgmem.FactFilter{})
	s.SetResponder(llmtest.Sequence(llmtest.Text(llmtest.JudgeJSON(nil, []llmtest.FactDecision{{Decision: "update", TargetIDs: []string{fs2[0].ID}}}))))
	ep := kgmem.Episode{ID: "ep-x", Namespace: ns, Name: "Ann", Timestamp: clock.t}
	res, err := in2.Integrate(context.Background(), IntegrateRequest{Namespace: ns, Episodes: []kgmem.Episode{ep}, Policy: kgmem.WritePolicy{DisableUpdates: true},
		Triples: []kgmem.Triple{{Subject: "Ann", Predicate: "performs on", Object: "piano", EpisodeIDs: []string{"ep-x"}}}})
	if err != nil || ops(res) != "added" {
		t.Errorf("updates disabled: %v %s", err, ops(res))
	}
}

// Servers divide logits by the temperature: the one sent for greedy
// decoding must leave a large logit finite in float32 (1e-45 did not).
func TestGreedyTemperatureIsSafeToDivideBy(t *testing.T) {
	const largeLogit = float32(1000)
	if q := largeLogit / float32(greedyTemperature); math.IsInf(float64(q), 0) || greedyTemperature <= 0 {
		t.Errorf("1000 / %g = %g in float32, want finite", float32(greedyTemperature), q)
	}
}
