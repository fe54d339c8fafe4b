package milvus_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/vector/milvus"
)

// TestPurgeRewriteExplore measures filtered recall@10 against exact search
// after each round of purge (DeleteNamespace of every namespace) and rewrite
// of the same ids, the reproduction behind docs/milvus.md "Recall of unsealed
// rows". Knobs: PX_DIM, PX_N, PX_NS, PX_ROUNDS, PX_FLUSH (1 flush, 2 none),
// PX_EF, PX_SESSION, PX_KIND (filter to one kind), PX_EXACT (Config.ExactBelow;
// -1 off). It prints figures and asserts nothing, so it only runs on request.
func TestPurgeRewriteExplore(t *testing.T) {
	if os.Getenv("KGMEM_MILVUS_PURGE_EXPLORE") == "" {
		t.Skip("set KGMEM_MILVUS_PURGE_EXPLORE=1")
	}
	dim := envInt(t, "PX_DIM", 64)
	n := envInt(t, "PX_N", 6000)
	nns := envInt(t, "PX_NS", 20)
	rounds := envInt(t, "PX_ROUNDS", 3)
	flush := envInt(t, "PX_FLUSH", 1) // 2: no flush
	ef := envInt(t, "PX_EF", 128)
	level := milvus.Strong
	if os.Getenv("PX_SESSION") != "" {
		level = milvus.Session
	}
	kinded := os.Getenv("PX_KIND") != ""
	exact := envIntAny(t, "PX_EXACT", 0)
	ix := openFresh(t, milvus.Config{Dim: dim, Ef: ef, ConsistencyLevel: level, ExactBelow: exact})
	c, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(11, 111))
	vec := latent(rng, dim, 16)
	recs := make([]kgmem.VectorRecord, n)
	per := n / nns
	for i := range recs {
		recs[i] = kgmem.VectorRecord{ID: fmt.Sprintf("r-%05d", i), Namespace: kgmem.Namespace(fmt.Sprintf("px/n%03d", i/per)), Kind: kgmem.AllKinds()[i%3], Vector: vec()}
	}
	queries := make([][]float32, 20)
	for i := range queries {
		queries[i] = vec()
	}
	for round := 1; round <= rounds; round++ {
		if round > 1 {
			for j := range nns {
				if err := ix.DeleteNamespace(c, kgmem.Namespace(fmt.Sprintf("px/n%03d", j))); err != nil {
					t.Fatal(err)
				}
			}
		}
		start := time.Now()
		if err := ix.Upsert(c, recs); err != nil {
			t.Fatal(err)
		}
		if flush == 1 {
			if err := ix.Flush(c); err != nil {
				t.Fatal(err)
			}
		}
		written := time.Since(start)
		found, total, counted := 0, 0, 0
		for j := 0; j < nns; j += max(1, nns/5) {
			ns := kgmem.Namespace(fmt.Sprintf("px/n%03d", j))
			pool := recs[j*per : (j+1)*per]
			var kinds []kgmem.Kind
			if kinded {
				kinds = []kgmem.Kind{kgmem.AllKinds()[2]}
				pool = slices.DeleteFunc(slices.Clone(pool), func(r kgmem.VectorRecord) bool { return r.Kind != kinds[0] })
			}
			cnt, err := ix.Count(c, ns, "")
			if err != nil {
				t.Fatal(err)
			}
			counted += cnt
			for _, q := range queries {
				want := exactTopK(pool, q, 10)
				hits, err := ix.Search(c, kgmem.VectorQuery{Namespace: ns, Vector: q, K: 10, Kinds: kinds})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if slices.Contains(want, h.ID) {
						found++
					}
				}
				total += len(want)
			}
		}
		t.Logf("round %d: written+flushed in %s, recall@10 %.3f (%d/%d), counted %d", round, written.Round(time.Millisecond), float64(found)/float64(total), found, total, counted)
	}
}

// envIntAny reads an integer test knob of any sign, def when unset.
func envIntAny(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}
