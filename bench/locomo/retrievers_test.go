package locomo

import (
	"reflect"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/memory"
)

func TestRetrieverRankings(t *testing.T) {
	ep := func(id string, sources ...memory.SourceScore) memory.EpisodeResult {
		return memory.EpisodeResult{Episode: kgmem.Episode{MessageID: id}, Score: memory.Score{Sources: sources}}
	}
	got := RetrieverRankings([]memory.EpisodeResult{
		ep("D1:1", memory.SourceScore{Retriever: "vector", Rank: 2}, memory.SourceScore{Retriever: "bm25", Rank: 1}),
		ep("D1:2", memory.SourceScore{Retriever: "vector", Rank: 1}),
		ep("D1:3", memory.SourceScore{Retriever: "bm25", Rank: 2}),
	})
	want := map[string][]string{"vector": {"D1:2", "D1:1"}, "bm25": {"D1:1", "D1:3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rankings %v, want %v", got, want)
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
