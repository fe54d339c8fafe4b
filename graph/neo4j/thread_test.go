package neo4j

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/testenv"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestThreadNeighborsReadNearTheEpisode profiles the first ring of thread
// neighbours for an episode in the middle of a thread of 300 turns an hour
// apart and of one of 3,000: the database reads about as much for
// both. The seek of the whole thread on each side, which it replaced, read
// every turn of the thread for every search hit.
func TestThreadNeighborsReadNearTheEpisode(t *testing.T) {
	s, err := Open(t.Context(), Config{URI: testenv.Neo4jURI(t), Scope: "t" + kgmem.NewID("")[1:]})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "thread/long"
	t.Cleanup(func() {
		_, _ = s.PurgeNamespace(context.Background(), ns)
		_ = s.Close()
	})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hits := map[string]int64{}
	for _, turns := range []int{300, 3000} {
		thread := fmt.Sprintf("t%d", turns)
		for first := 0; first < turns; first += 1000 {
			cs := kgmem.ChangeSet{Namespace: ns}
			for i := first; i < min(turns, first+1000); i++ {
				at := start.Add(time.Duration(i) * time.Hour)
				cs.Episodes = append(cs.Episodes, kgmem.Episode{ID: fmt.Sprintf("ep_%s_%d", thread, i), Namespace: ns, ThreadID: thread,
					MessageID: fmt.Sprint(i), Name: "Ann", Role: "user", Content: "turn", Timestamp: at, CreatedAt: at})
			}
			if err := s.Apply(t.Context(), cs); err != nil {
				t.Fatal(err)
			}
		}
		params := map[string]any{"ns": s.key(ns), "window": int64(2), "outer": cypherDuration(threadRings[0]),
			"rows": []any{map[string]any{"id": fmt.Sprintf("ep_%s_%d", thread, turns/2), "before": true, "after": true}}}
		sess := s.session(t.Context(), neo4j.AccessModeRead)
		res, err := sess.Run(t.Context(), "PROFILE "+qThreadFirst, params)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := res.Collect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sum, err := res.Consume(t.Context())
		_ = sess.Close(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 {
			t.Fatalf("%d records for one episode", len(recs))
		}
		if before, _ := recs[0].Values[2].([]any); len(before) != 2 {
			t.Errorf("thread of %d: %d neighbours before the middle within the first ring, want 2", turns, len(before))
		}
		var total func(p neo4j.ProfiledPlan) int64
		total = func(p neo4j.ProfiledPlan) int64 {
			n := p.DbHits()
			for _, c := range p.Children() {
				n += total(c)
			}
			return n
		}
		hits[thread] = total(sum.Profile())
	}
	t.Logf("database hits for the neighbours of the middle turn: %d in a thread of 300, %d in one of 3,000", hits["t300"], hits["t3000"])
	if short, long := hits["t300"], hits["t3000"]; short == 0 || long > 2*short {
		t.Errorf("database hits for the neighbours of a turn: %d in a thread of 300, %d in one of 3,000; want about the same", short, long)
	}
}
