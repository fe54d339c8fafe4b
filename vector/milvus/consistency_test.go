package milvus

import (
	"slices"
	"testing"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
)

// optionsOf applies opts as the SDK does before it sends a read.
func optionsOf(opts []client.SearchQueryOptionFunc) client.SearchQueryOption {
	var o client.SearchQueryOption
	for _, f := range opts {
		f(&o)
	}
	return o
}

// TestSessionReadsWaitForTheirNamespaceOnly: a Session read of a namespace
// carries the timestamp of this index's last write to that namespace, not
// the newest write of the collection (which made every read under
// continuous ingest wait for a time tick); a namespace without a recent
// write reads Bounded, and every read is Strong right after a delete.
func TestSessionReadsWaitForTheirNamespaceOnly(t *testing.T) {
	a, b, c := kgmem.Namespace("a"), kgmem.Namespace("b"), kgmem.Namespace("c")
	tests := []struct {
		name   string
		setup  func(s *sessions)
		read   kgmem.Namespace
		level  entity.ConsistencyLevel
		wantTS uint64
	}{
		{"no write", func(*sessions) {}, a, entity.ClBounded, 0},
		{"own write", func(s *sessions) { s.wrote(100, []kgmem.Namespace{a}) }, a, entity.ClCustomized, 100},
		{"other namespace's write", func(s *sessions) { s.wrote(100, []kgmem.Namespace{a}); s.wrote(900, []kgmem.Namespace{b}) }, a, entity.ClCustomized, 100},
		{"unwritten namespace next to writes", func(s *sessions) { s.wrote(900, []kgmem.Namespace{a, b}) }, c, entity.ClBounded, 0},
		{"timestamps only grow", func(s *sessions) { s.wrote(300, []kgmem.Namespace{a}); s.wrote(200, []kgmem.Namespace{a}) }, a, entity.ClCustomized, 300},
		{"after a delete", func(s *sessions) { s.wrote(100, []kgmem.Namespace{a}); s.deleted() }, a, entity.ClStrong, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sessions
			tt.setup(&s)
			got := optionsOf(s.guarantee(tt.read))
			if got.ConsistencyLevel != tt.level || got.GuaranteeTimestamp != tt.wantTS {
				t.Fatalf("read of %s: level %v, guarantee %d; want %v, %d", tt.read, got.ConsistencyLevel, got.GuaranteeTimestamp, tt.level, tt.wantTS)
			}
		})
	}
}

// TestConfiguredLevelsOtherThanSessionAreKept: Strong, Bounded and
// Eventually read at their level whatever was written.
func TestConfiguredLevelsOtherThanSessionAreKept(t *testing.T) {
	for _, level := range []entity.ConsistencyLevel{entity.ClStrong, entity.ClBounded, entity.ClEventually} {
		ix := &Index{level: level}
		ix.sessions.wrote(100, []kgmem.Namespace{"a"})
		if got := optionsOf(ix.readOptions("a")); got.ConsistencyLevel != level || got.GuaranteeTimestamp != 0 {
			t.Errorf("configured %v: read at %v, guarantee %d", level, got.ConsistencyLevel, got.GuaranteeTimestamp)
		}
	}
}

// TestLargeFiltersAreForgottenOnDelete: a filter found too large for exact
// search is searched by Milvus until this index deletes anything, which
// may shrink it.
func TestLargeFiltersAreForgottenOnDelete(t *testing.T) {
	ix := &Index{level: entity.ClSession}
	if ix.large.known("a") {
		t.Fatal("an unseen filter is known large")
	}
	ix.large.mark("a")
	if !ix.large.known("a") || ix.large.known("b") {
		t.Fatalf("after marking a: a %v, b %v", ix.large.known("a"), ix.large.known("b"))
	}
	ix.deleted()
	if ix.large.known("a") {
		t.Fatal("a delete did not forget the large filters")
	}
}

// TestRankedReadsLayRecentWritesOver: a Session read ranked here does not
// wait for this index's last write: it reads Bounded and lays the vectors
// this index wrote within the session window over the rows; after a
// delete, or when the namespace's writes were not all held, it reads as
// any other read.
func TestRankedReadsLayRecentWritesOver(t *testing.T) {
	rec := func(ns kgmem.Namespace, id string, kind kgmem.Kind) kgmem.VectorRecord {
		return kgmem.VectorRecord{Namespace: ns, ID: id, Kind: kind, Vector: []float32{1, 0}}
	}
	tests := []struct {
		name     string
		setup    func(ix *Index)
		kinds    []kgmem.Kind
		level    entity.ConsistencyLevel
		overlaid []string
	}{
		{"nothing written", func(*Index) {}, nil, entity.ClBounded, []string{}},
		{"own writes", func(ix *Index) {
			ix.sessions.wrote(100, []kgmem.Namespace{"a"})
			ix.recent.wrote([]kgmem.VectorRecord{rec("a", "e1", kgmem.KindEpisode), rec("a", "f1", kgmem.KindFact), rec("b", "e2", kgmem.KindEpisode)})
		}, nil, entity.ClBounded, []string{"e1", "f1"}},
		{"of the kinds asked", func(ix *Index) {
			ix.recent.wrote([]kgmem.VectorRecord{rec("a", "e1", kgmem.KindEpisode), rec("a", "f1", kgmem.KindFact)})
		}, []kgmem.Kind{kgmem.KindFact}, entity.ClBounded, []string{"f1"}},
		{"deleted ids are dropped", func(ix *Index) {
			ix.recent.wrote([]kgmem.VectorRecord{rec("a", "e1", kgmem.KindEpisode), rec("a", "e2", kgmem.KindEpisode)})
			ix.recent.forget("a", []string{"e1"})
		}, nil, entity.ClBounded, []string{"e2"}},
		{"a purged namespace holds nothing", func(ix *Index) {
			ix.recent.wrote([]kgmem.VectorRecord{rec("a", "e1", kgmem.KindEpisode)})
			ix.recent.forget("a", nil)
		}, nil, entity.ClBounded, []string{}},
		{"right after a delete", func(ix *Index) {
			ix.recent.wrote([]kgmem.VectorRecord{rec("a", "e1", kgmem.KindEpisode)})
			ix.deleted()
		}, nil, entity.ClStrong, []string{}},
		{"more writes than held", func(ix *Index) {
			ix.recent.limit = 1
			ix.sessions.wrote(100, []kgmem.Namespace{"a"})
			ix.recent.wrote([]kgmem.VectorRecord{rec("a", "e1", kgmem.KindEpisode), rec("a", "e2", kgmem.KindEpisode)})
		}, nil, entity.ClCustomized, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := &Index{level: entity.ClSession}
			tt.setup(ix)
			opts, recent := ix.rankedReadOptions("a", tt.kinds)
			if got := optionsOf(opts); got.ConsistencyLevel != tt.level {
				t.Fatalf("read at %v, want %v", got.ConsistencyLevel, tt.level)
			}
			var ids []string
			for id := range recent {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			if len(ids) != len(tt.overlaid) || !slices.Equal(ids, tt.overlaid) {
				t.Fatalf("overlaid %v, want %v", ids, tt.overlaid)
			}
		})
	}
	// Other levels read as configured, with nothing laid over.
	ix := &Index{level: entity.ClStrong}
	ix.recent.wrote([]kgmem.VectorRecord{rec("a", "e1", kgmem.KindEpisode)})
	if opts, recent := ix.rankedReadOptions("a", nil); optionsOf(opts).ConsistencyLevel != entity.ClStrong || recent != nil {
		t.Fatalf("Strong: read at %v with %v laid over", optionsOf(opts).ConsistencyLevel, recent)
	}
}

// TestSearchesMilvusRanksLayRecentWritesOver: a Session search too large to
// rank here reads Bounded too, asks Milvus for one more hit per recent
// write, and scores those writes from the vectors written, replacing what
// Milvus ranked of them (an older vector, or nothing yet); with more recent
// writes than it may lay over, it reads with its session timestamp.
func TestSearchesMilvusRanksLayRecentWritesOver(t *testing.T) {
	ix := &Index{level: entity.ClSession}
	ix.sessions.wrote(100, []kgmem.Namespace{"a"})
	ix.recent.wrote([]kgmem.VectorRecord{
		{Namespace: "a", ID: "b", Kind: kgmem.KindEpisode, Vector: []float32{0, 1}},  // rewritten away from the query
		{Namespace: "a", ID: "d", Kind: kgmem.KindFact, Vector: []float32{1, 0.1}},   // new, near it
		{Namespace: "a", ID: "z", Kind: kgmem.KindEpisode, Vector: []float32{-1, 0}}, // new, far from it
	})
	opts, recent, k := ix.annReadOptions("a", nil, 3)
	if level := optionsOf(opts).ConsistencyLevel; level != entity.ClBounded || k != 6 || len(recent) != 3 {
		t.Fatalf("read at %v for %d hits with %d writes laid over, want Bounded, 6 and 3", level, k, len(recent))
	}
	ranked := []kgmem.Hit{ // as Milvus ranked the stored vectors
		{Kind: kgmem.KindEpisode, ID: "a", Score: 0.9},
		{Kind: kgmem.KindEpisode, ID: "b", Score: 0.8},
		{Kind: kgmem.KindEpisode, ID: "c", Score: 0.7},
	}
	var got []string
	for _, h := range layOver(ranked, recent, []float32{1, 0}, 3, false) {
		got = append(got, h.ID)
	}
	if want := []string{"d", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("laid over: %v, want %v", got, want)
	}

	ix.recent.limit = maxRecentRecords
	var many []kgmem.VectorRecord
	for i := range maxOverlaid + 1 {
		many = append(many, kgmem.VectorRecord{Namespace: "a", ID: string(rune('A' + i)), Kind: kgmem.KindEpisode, Vector: []float32{1, 0}})
	}
	ix.recent.wrote(many)
	if opts, recent, k := ix.annReadOptions("a", nil, 3); optionsOf(opts).ConsistencyLevel != entity.ClCustomized || recent != nil || k != 3 {
		t.Errorf("with %d recent writes: read at %v for %d hits with %d laid over, want the session timestamp, 3 and none",
			maxOverlaid+4, optionsOf(opts).ConsistencyLevel, k, len(recent))
	}
}
