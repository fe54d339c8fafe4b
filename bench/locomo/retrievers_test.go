package locomo

import (
	"reflect"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
)

func TestRetrieverRankings(t *testing.T) {
	ep := func(id string, sources ...wire.SourceScore) wire.EpisodeResult {
		return wire.EpisodeResult{Episode: kgmem.Episode{MessageID: id}, Score: wire.Score{Sources: sources}}
	}
	got := RetrieverRankings([]wire.EpisodeResult{
		ep("D1:1", wire.SourceScore{Retriever: "vector", Rank: 2}, wire.SourceScore{Retriever: "bm25", Rank: 1}),
		ep("D1:2", wire.SourceScore{Retriever: "vector", Rank: 1}),
		ep("D1:3", wire.SourceScore{Retriever: "bm25", Rank: 2}),
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
