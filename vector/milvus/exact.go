package milvus

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
)

// exactSearch answers q exactly when expr (q's namespace and kinds, without
// repeats) matches at most Config.ExactBelow records: it reads their
// vectors and ranks them by cosine similarity here.
// ok is false (and nothing is returned) when expr matches more.
//
// Milvus 2.3 searches the rows of growing (not yet sealed and indexed)
// segments through a temporary IVF index (server settings
// queryNode.segcore.interimIndex: nlist 128, nprobe 16, not overridable per
// search), and that index finds only about 55-70% of the true top 10 of a
// filter matching 1-2% of the rows. Rewritten namespaces (purge, then
// re-import) and fresh ingests sit in growing segments until Milvus seals
// them, so their searches were the ones that lost recall. Small filtered sets
// are the ones hurt most and the cheapest to rank exactly.
//
// At Session the read does not wait for this index's last write to ns:
// it is Bounded, and this index's recent writes are laid over its rows
// (rankedReadOptions).
func (ix *Index) exactSearch(ctx context.Context, expr string, kinds []kgmem.Kind, q kgmem.VectorQuery) ([]kgmem.Hit, bool, error) {
	if ix.large.known(expr) {
		return nil, false, nil
	}
	level, recent := ix.rankedReadOptions(q.Namespace, kinds)
	// One read: the vectors of up to ExactBelow+1 records; one more than
	// ExactBelow means the filter is too large. Counting first cost every
	// search a second sequential round trip.
	window := ix.cfg.ExactBelow + 1
	if window > maxQueryWindow {
		n, err := ix.count(ctx, expr, level)
		if err != nil {
			return nil, false, err
		}
		if n > ix.cfg.ExactBelow {
			ix.large.mark(expr)
			return nil, false, nil
		}
		window = ix.cfg.ExactBelow
	}
	rs, err := ix.cl.Query(ctx, ix.cfg.Collection, nil, expr, []string{fieldID, fieldKind, fieldVector},
		append(level, client.WithLimit(int64(window)))...)
	if err != nil {
		return nil, false, wrap("search: read vectors", err)
	}
	var ids, rowKinds []string
	var vecs [][]float32
	if col := rs.GetColumn(fieldID); col != nil && col.Len() > 0 {
		idCol, ok1 := col.(*entity.ColumnVarChar)
		kindCol, ok2 := rs.GetColumn(fieldKind).(*entity.ColumnVarChar)
		vecCol, ok3 := rs.GetColumn(fieldVector).(*entity.ColumnFloatVector)
		if !ok1 || !ok2 || !ok3 {
			return nil, false, fmt.Errorf("milvus search: read vectors: unexpected columns %v", rs)
		}
		ids, rowKinds, vecs = idCol.Data(), kindCol.Data(), vecCol.Data()
	}
	if len(ids) > ix.cfg.ExactBelow {
		ix.large.mark(expr)
		return nil, false, nil
	}
	rows := make([]kgmem.Hit, 0, len(ids))
	qn := norm(q.Vector)
	for i, v := range vecs {
		// This index's recent writes replace the rows the read returned of
		// them, which may be older versions or missing (layOver).
		if _, rewritten := recent[ids[i]]; rewritten {
			continue
		}
		if sim, ok := cosine(q.Vector, qn, v); ok {
			rows = append(rows, kgmem.Hit{Kind: kgmem.Kind(rowKinds[i]), ID: ids[i], Score: sim})
		}
	}
	return layOver(rows, recent, q.Vector, q.K, q.KEach), true, nil
}

// bestFirst orders hits by score, best first, then by id.
func bestFirst(a, b kgmem.Hit) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
}

// topK is the first k of hits (sorted best first), or with each the first
// k of each kind, in the same order.
func topK(hits []kgmem.Hit, k int, each bool) []kgmem.Hit {
	if !each {
		return hits[:min(k, len(hits))]
	}
	kept := map[kgmem.Kind]int{}
	out := hits[:0]
	for _, h := range hits {
		if kept[h.Kind] < k {
			kept[h.Kind]++
			out = append(out, h)
		}
	}
	return out
}

// largeFor is how long a filter found to match more than ExactBelow
// records is searched by Milvus without looking again. A namespace shrinks
// only by deletes: this index forgets every mark when it deletes; another
// server's purge is seen within largeFor.
const largeFor = 10 * time.Second

// largeFilters remembers the filters found too large for exact search.
type largeFilters struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

// known reports whether expr was found too large within largeFor.
func (l *largeFilters) known(expr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.seen[expr]
	return ok && time.Since(at) < largeFor
}

// mark records that expr matches more than ExactBelow records.
func (l *largeFilters) mark(expr string) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]time.Time{}
	}
	for e, at := range l.seen {
		if now.Sub(at) >= largeFor {
			delete(l.seen, e)
		}
	}
	l.seen[expr] = now
}

// forget drops every mark (a delete may have shrunk any filter).
func (l *largeFilters) forget() {
	l.mu.Lock()
	l.seen = nil
	l.mu.Unlock()
}

// cosine is the cosine similarity of query (of norm qn) and v, or ok false
// for a zero v.
func cosine(query []float32, qn float64, v []float32) (sim float64, ok bool) {
	vn := norm(v)
	if vn == 0 {
		return 0, false
	}
	var dot float64
	for j, x := range v {
		dot += float64(x) * float64(query[j])
	}
	return dot / (qn * vn), true
}

// norm is the Euclidean length of v.
func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
