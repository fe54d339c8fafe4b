package hnsw

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestArenaSlots(t *testing.T) {
	const dim = 4
	// Segments of 3 vectors (48 bytes, each mapped at its own page): ten
	// vectors take four segments.
	a, err := openArena(t.TempDir(), dim, 3*4*dim)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	vec := func(i int) []float32 {
		return []float32{float32(i), float32(i) + .25, float32(i) + .5, float32(i) + .75}
	}
	views := map[uint32][]float32{}
	for i := range 10 {
		slot, view, err := a.alloc(vec(i))
		if err != nil {
			t.Fatal(err)
		}
		if slot != uint32(i) || !slices.Equal(view, vec(i)) {
			t.Fatalf("alloc %d: slot %d, view %v", i, slot, view)
		}
		views[slot] = view
	}
	if len(a.segments) != 4 {
		t.Errorf("10 vectors in segments of 3: %d segments, want 4", len(a.segments))
	}
	// Growing never moves what was written: every view still reads its vector.
	for slot, view := range views {
		if !slices.Equal(view, vec(int(slot))) {
			t.Errorf("slot %d reads %v after growth, want %v", slot, view, vec(int(slot)))
		}
	}
	a.release(2, 7)
	if got := a.inUse(); got != 8 {
		t.Errorf("inUse after releasing 2 of 10 = %d, want 8", got)
	}
	reused := map[uint32]bool{}
	for i := range 3 {
		slot, view, err := a.alloc(vec(100 + i))
		if err != nil {
			t.Fatal(err)
		}
		reused[slot] = true
		if !slices.Equal(view, vec(100+i)) {
			t.Errorf("reused slot %d reads %v", slot, view)
		}
	}
	if !reused[2] || !reused[7] || !reused[10] {
		t.Errorf("after releasing 2 and 7, three allocations took %v, want 2, 7 and 10", reused)
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.alloc(vec(0)); err != errArenaClosed {
		t.Errorf("alloc after close: %v, want errArenaClosed", err)
	}
}

// TestArenaLeavesNoFile checks that the scratch file is gone from the
// directory while the index is open (where the platform lets an open file
// be removed) and after Close in any case.
func TestArenaLeavesNoFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	x, err := Open(ctx, filepath.Join(dir, "vectors.db"), 8, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	if err := x.Upsert(ctx, []kgmem.VectorRecord{{Namespace: "ns", ID: "a", Kind: kgmem.KindFact, Vector: randomVector(rng, 8)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Search(ctx, kgmem.VectorQuery{Namespace: "ns", Vector: randomVector(rng, 8), K: 1}); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if left := arenaFiles(t, dir); len(left) > 0 {
			t.Errorf("while open, the directory shows %v", left)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if left := arenaFiles(t, dir); len(left) > 0 {
		t.Errorf("after Close, the directory holds %v", left)
	}
}

func arenaFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".arena") {
			found = append(found, e.Name())
		}
	}
	return found
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// checkArenaAccounting fails unless the arena's slots in use are exactly
// the ones the loaded shards hold (live vectors and graph tombstones), each
// held once.
func checkArenaAccounting(t *testing.T, x *Index, step string) {
	t.Helper()
	x.mu.Lock()
	spaces := make([]*space, 0, len(x.spaces))
	for _, sp := range x.spaces {
		spaces = append(spaces, sp)
	}
	x.mu.Unlock()
	held := map[uint32]bool{}
	for _, sp := range spaces {
		sp.mu.RLock()
		for _, sh := range sp.shards {
			for slot, ref := range sh.refs {
				if ref == noRef {
					if sh.vecs[slot] != nil {
						t.Fatalf("%s: a live vector without an arena slot", step)
					}
					continue
				}
				if held[ref] {
					t.Fatalf("%s: arena slot %d held twice", step, ref)
				}
				held[ref] = true
			}
		}
		sp.mu.RUnlock()
	}
	if got := x.arena.inUse(); got != len(held) {
		t.Fatalf("%s: arena has %d slots in use, the shards hold %d", step, got, len(held))
	}
}

// TestArenaFollowsEveryWrite runs random upserts, replacements, kind
// changes, deletes, namespace deletes and evictions, in exact-scan and
// graph shards, and checks after every step that no arena slot leaks or is
// shared, and that every live record is found by its own vector.
func TestArenaFollowsEveryWrite(t *testing.T) {
	for _, exactBelow := range []int{1, 40, 1000} {
		t.Run(fmt.Sprintf("exact below %d", exactBelow), func(t *testing.T) {
			ctx := context.Background()
			const dim = 8
			// Room for about 120 vectors: evictions happen.
			x, err := Open(ctx, filepath.Join(t.TempDir(), "vectors.db"), dim, Options{ExactBelow: exactBelow, MaxLoadedBytes: 120 * int64(4*dim+8*DefaultM+64)})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			rng := rand.New(rand.NewPCG(uint64(exactBelow), 5))
			live := map[kgmem.Namespace]map[string][]float32{}
			kinds := []kgmem.Kind{kgmem.KindFact, kgmem.KindEntity}
			for step := range 600 {
				ns := kgmem.Namespace(fmt.Sprintf("ns%d", rng.IntN(4)))
				if live[ns] == nil {
					live[ns] = map[string][]float32{}
				}
				id := fmt.Sprintf("r%d", rng.IntN(80))
				switch op := rng.IntN(20); {
				case op < 13:
					v := randomVector(rng, dim)
					rec := kgmem.VectorRecord{Namespace: ns, ID: id, Kind: kinds[rng.IntN(2)], Vector: v}
					if err := x.Upsert(ctx, []kgmem.VectorRecord{rec}); err != nil {
						t.Fatal(err)
					}
					live[ns][id] = v
				case op < 19:
					if err := x.Delete(ctx, ns, []string{id}); err != nil {
						t.Fatal(err)
					}
					delete(live[ns], id)
				default:
					if err := x.DeleteNamespace(ctx, ns); err != nil {
						t.Fatal(err)
					}
					delete(live, ns)
				}
				checkArenaAccounting(t, x, fmt.Sprintf("step %d", step))
				if step%10 == 0 {
					for ns, recs := range live {
						for id, v := range recs {
							hits, err := x.Search(ctx, kgmem.VectorQuery{Namespace: ns, Vector: v, K: 1})
							if err != nil || len(hits) != 1 || hits[0].Score < 0.9999 {
								t.Fatalf("step %d: search %s/%s by its vector: %v, %v", step, ns, id, hits, err)
							}
						}
						checkArenaAccounting(t, x, fmt.Sprintf("step %d, after searching %s", step, ns))
					}
				}
			}
		})
	}
}

// TestEvictionDuringSearches searches many namespaces at once with a budget
// of about one namespace, so that nearly every search evicts another one
// while it may be searched; run with -race. A slot released while a search
// still read it would be reused by the next load, and that search would
// then find another record than the one whose vector it asked for.
func TestEvictionDuringSearches(t *testing.T) {
	ctx := context.Background()
	const dim, namespaces, perNS = 16, 6, 60
	x, err := Open(ctx, filepath.Join(t.TempDir(), "vectors.db"), dim, Options{MaxLoadedBytes: perNS * int64(4*dim+8*DefaultM+64)})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	recs := make([][]kgmem.VectorRecord, namespaces)
	for i := range recs {
		for j := range perNS {
			recs[i] = append(recs[i], kgmem.VectorRecord{Namespace: kgmem.Namespace(fmt.Sprintf("ns%d", i)), ID: fmt.Sprintf("r%d", j), Kind: kgmem.KindFact, Vector: randomVector(rng, dim)})
		}
		if err := x.Upsert(ctx, recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 150 {
				rec := recs[(w+i)%namespaces][(w*31+i)%perNS]
				hits, err := x.Search(ctx, kgmem.VectorQuery{Namespace: rec.Namespace, Vector: rec.Vector, K: 1})
				if err != nil || len(hits) != 1 || hits[0].ID != rec.ID {
					t.Errorf("search %s/%s by its vector: %v, %v", rec.Namespace, rec.ID, hits, err)
					return
				}
			}
		})
	}
	wg.Wait()
	checkArenaAccounting(t, x, "after the searches")
}

// TestLoadedVectorsStayOffTheHeap loads 15,000 vectors of dimension 256
// (15 MiB of floats) and checks that the Go heap grew by a small part of
// that: the vectors are in the arena's mapping.
func TestLoadedVectorsStayOffTheHeap(t *testing.T) {
	ctx := context.Background()
	const dim, namespaces, perNS = 256, 10, 1500 // exact-scan shards: no graph links
	path := filepath.Join(t.TempDir(), "vectors.db")
	seed, err := Open(ctx, path, dim, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for i := range namespaces {
		var recs []kgmem.VectorRecord
		for j := range perNS {
			recs = append(recs, kgmem.VectorRecord{Namespace: kgmem.Namespace(fmt.Sprintf("ns%d", i)), ID: fmt.Sprintf("r%d", j), Kind: kgmem.KindFact, Vector: randomVector(rng, dim)})
		}
		if err := seed.Upsert(ctx, recs); err != nil {
			t.Fatal(err)
		}
	}
	if err := seed.Close(); err != nil {
		t.Fatal(err)
	}
	x, err := Open(ctx, path, dim, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	before := liveHeap()
	q := randomVector(rng, dim)
	for i := range namespaces {
		if _, err := x.Search(ctx, kgmem.VectorQuery{Namespace: kgmem.Namespace(fmt.Sprintf("ns%d", i)), Vector: q, K: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if _, vecs := x.Loaded(); vecs != namespaces*perNS {
		t.Fatalf("loaded %d vectors, want %d", vecs, namespaces*perNS)
	}
	grown := int64(liveHeap()) - int64(before)
	raw := int64(namespaces * perNS * dim * 4)
	t.Logf("heap grew by %d KiB for %d KiB of vectors", grown>>10, raw>>10)
	if grown > raw/5 {
		t.Errorf("loading %d KiB of vectors grew the heap by %d KiB, want under a fifth of it", raw>>10, grown>>10)
	}
	runtime.KeepAlive(x)
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestSearchAfterClose checks that a search after Close fails with an error
// instead of reading vectors that are no longer mapped.
func TestSearchAfterClose(t *testing.T) {
	ctx := context.Background()
	x, err := Open(ctx, filepath.Join(t.TempDir(), "vectors.db"), 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := []float32{1, 0, 0, 0}
	if err := x.Upsert(ctx, []kgmem.VectorRecord{{Namespace: "ns", ID: "a", Kind: kgmem.KindFact, Vector: v}}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Search(ctx, kgmem.VectorQuery{Namespace: "ns", Vector: v, K: 1}); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Search(ctx, kgmem.VectorQuery{Namespace: "ns", Vector: v, K: 1}); !errors.Is(err, errIndexClosed) {
		t.Errorf("search after Close: %v, want errIndexClosed", err)
	}
}
