package memory_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/llmtest"
	"github.com/kgmem/kgmem/memory"
	openai "github.com/sashabaranov/go-openai"
)

// existingFactID finds the stored facts the judge is shown.
var existingFactID = regexp.MustCompile(`"id":\s*"(fact_[0-9a-f]+)"`)

// TestJudgeDecidesWhatTheTableDoesNotCover: with an LLM configured, a new
// object for a relation the cardinality table does not list goes to the
// judge (one call for the batch), whose "invalidate" ends the old fact; a
// relation the table lists is decided by the table with no call at all.
func TestJudgeDecidesWhatTheTableDoesNotCover(t *testing.T) {
	judge := func(req openai.ChatCompletionRequest) (llmtest.Reply, error) {
		last := req.Messages[len(req.Messages)-1].Content
		if !strings.Contains(last, llmtest.JudgeMarker) {
			return llmtest.Reply{}, errors.New("only judge calls expected")
		}
		var ids []string
		for _, m := range existingFactID.FindAllStringSubmatch(last, -1) {
			ids = append(ids, m[1])
		}
		return llmtest.Text(llmtest.JudgeJSON(nil, []llmtest.FactDecision{{Decision: "invalidate", TargetIDs: ids, Reason: "one car at a time"}})), nil
	}
	srv := llmtest.New(t, llmtest.WithResponder(judge))
	h := newHarness(t, srv)
	ctx := t.Context()
	ns := kgmem.Namespace("card/judge")
	at := func(s string) time.Time {
		v, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	post := func(s, p, o, day string) memory.AddFactsResult {
		t.Helper()
		res, err := h.engine.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{{Subject: s, Predicate: p, Object: o, ValidAt: at(day)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := post("Yan", "drives", "Tesla", "2020-01-01"); res.Usage.Calls != 0 {
		t.Errorf("first fact: %d LLM calls, want 0 (nothing to compare)", res.Usage.Calls)
	}
	res := post("Yan", "drives", "Volvo", "2022-01-01")
	if res.Usage.Calls != 1 {
		t.Errorf("uncovered relation: %d LLM calls, want 1 (the judge)", res.Usage.Calls)
	}
	if countOps(res.Facts, kgmem.OpInvalidated) != 1 {
		t.Errorf("judge's invalidate not applied: %+v", res.Facts)
	}
	post("Yan", "lives in", "Oslo", "2020-01-01")
	if res := post("Yan", "lives in", "Rome", "2022-01-01"); res.Usage.Calls != 0 || countOps(res.Facts, kgmem.OpInvalidated) != 1 {
		t.Errorf("table relation: %d LLM calls and %d invalidations, want 0 and 1", res.Usage.Calls, countOps(res.Facts, kgmem.OpInvalidated))
	}
	views, err := h.engine.ListFacts(ctx, memory.ListFactsRequest{Namespace: ns, CurrentOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var current []string
	for _, v := range views {
		current = append(current, v.ObjectName)
	}
	if strings.Join(current, ",") != "Volvo,Rome" && strings.Join(current, ",") != "Rome,Volvo" {
		t.Errorf("current objects %v, want Volvo and Rome", current)
	}
}

// TestSettingsRejectBadCardinality: an unknown cardinality or an unusable
// predicate in the overrides is a field error and changes nothing.
func TestSettingsRejectBadCardinality(t *testing.T) {
	h := newHarness(t, nil)
	ns := kgmem.Namespace("card/settings")
	for _, tc := range []struct {
		s     kgmem.NamespaceSettings
		field string
	}{
		{kgmem.NamespaceSettings{Cardinality: map[string]kgmem.Cardinality{"drives": "single"}}, "cardinality.drives"},
		{kgmem.NamespaceSettings{Cardinality: map[string]kgmem.Cardinality{"!!!": kgmem.CardinalityMany}}, "cardinality.!!!"},
		{kgmem.NamespaceSettings{Schema: &kgmem.Schema{RelationTypes: []kgmem.TypeDef{{Name: "drives", Cardinality: "two"}}}}, "schema.relation_types[0].cardinality"},
		{kgmem.NamespaceSettings{Schema: &kgmem.Schema{EntityTypes: []kgmem.TypeDef{{Name: "Car", Cardinality: kgmem.CardinalityMany}}}}, "schema.entity_types[0].cardinality"},
	} {
		err := h.engine.PutSettings(t.Context(), ns, tc.s)
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrInvalid) || !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: %v, want a field error at %s", tc.s, err, tc.field)
		}
	}
	got, _, err := h.engine.Settings(t.Context(), ns)
	if err != nil || got.Cardinality != nil || got.Schema != nil {
		t.Errorf("settings changed: %+v %v", got, err)
	}
}

// TestReservedAttributes: clients cannot set kgmem's own attributes, and
// responses never show them.
func TestReservedAttributes(t *testing.T) {
	h := newHarness(t, nil)
	ctx := t.Context()
	ns := kgmem.Namespace("card/reserved")
	_, err := h.engine.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{{Subject: "A", Predicate: "likes", Object: "B",
		Attributes: map[string]any{kgmem.StatedEndAttribute: "open"}}}})
	var fe *kgmem.FieldError
	if !errors.As(err, &fe) || fe.Field != "facts[0].metadata."+kgmem.StatedEndAttribute {
		t.Fatalf("reserved metadata accepted: %v", err)
	}
	day := func(y int) time.Time { return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC) }
	for _, tr := range []kgmem.Triple{
		{Subject: "Ann", Predicate: "lives in", Object: "Oslo", ValidAt: day(2015), InvalidAt: day(2020), Attributes: map[string]any{"source": "cv"}},
		{Subject: "Ann", Predicate: "lives in", Object: "Rome", ValidAt: day(2018)},
	} {
		if _, err := h.engine.AddFacts(ctx, memory.AddFactsRequest{Namespace: ns, Facts: []kgmem.Triple{tr}}); err != nil {
			t.Fatal(err)
		}
	}
	views, err := h.engine.ListFacts(ctx, memory.ListFactsRequest{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		if _, ok := v.Attributes[kgmem.StatedEndAttribute]; ok {
			t.Errorf("%s shows %v", v.Text, v.Attributes)
		}
		if v.ObjectName == "Oslo" && (v.Status != kgmem.FactInvalidated || v.Attributes["source"] != "cv" || !v.InvalidAt.Equal(day(2018))) {
			t.Errorf("Oslo = %s until %v with %v, want invalidated at 2018 keeping its metadata", v.Status, v.InvalidAt, v.Attributes)
		}
	}
}
