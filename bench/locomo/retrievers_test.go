package locomo

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestRetrieverRankings(t *testing.T) {
	ep := func(id, score string) SearchEpisode {
		return SearchEpisode{MessageID: id, Score: json.RawMessage(score)}
	}
	got, err := RetrieverRankings([]SearchEpisode{
		ep("D1:1", `{"final":0.03,"sources":[{"retriever":"vector","rank":2,"score":0.8},{"retriever":"bm25","rank":1,"score":9}]}`),
		ep("D1:2", `{"final":0.02,"sources":[{"retriever":"vector","rank":1,"score":0.9}]}`),
		ep("D1:3", `{"final":0.01,"sources":[{"retriever":"bm25","rank":2,"score":4}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"vector": {"D1:2", "D1:1"}, "bm25": {"D1:1", "D1:3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rankings %v, want %v", got, want)
	}
	if _, err := RetrieverRankings([]SearchEpisode{ep("D1:1", `"not a breakdown"`)}); err == nil {
		t.Error("a malformed score breakdown was accepted")
	}
}

func TestDecayParams(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want map[string]any
	}{
		{Config{}, nil},
		{Config{DecayOff: true}, map[string]any{"enabled": false}},
		{Config{DecayFloor: 0.5}, map[string]any{"floor": 0.5}},
	} {
		if got := tc.cfg.decayParams(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.cfg, got, tc.want)
		}
	}
}
