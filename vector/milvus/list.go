package milvus

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"

	"github.com/kgmem/kgmem"
)

// ListIDs pages through the records of ns in ascending id order: a query
// filtered by namespace and id > page.After, limited to the page size, with
// only the id and kind fields read back. The page is sorted here as well, so
// the order does not rest on how the server merges segments.
func (ix *Index) ListIDs(ctx context.Context, ns kgmem.Namespace, page kgmem.Page) ([]kgmem.VectorKey, error) {
	limit, err := kgmem.CheckVectorPage(ns, page)
	if err != nil {
		return nil, fmt.Errorf("milvus list ids: %w", err)
	}
	expr := namespaceExpr(ns, nil)
	if page.After != "" {
		expr += " && " + fieldID + " > " + quote(page.After)
	}
	rs, err := ix.cl.Query(ctx, ix.cfg.Collection, nil, expr, []string{fieldID, fieldKind},
		append(ix.readOptions(ns), client.WithLimit(int64(limit)))...)
	if err != nil {
		return nil, wrap("list ids of "+string(ns), err)
	}
	ids, iok := rs.GetColumn(fieldID).(*entity.ColumnVarChar)
	kinds, kok := rs.GetColumn(fieldKind).(*entity.ColumnVarChar)
	if !iok || !kok {
		if rs.GetColumn(fieldID) == nil || rs.GetColumn(fieldID).Len() == 0 {
			return []kgmem.VectorKey{}, nil
		}
		return nil, fmt.Errorf("milvus list ids: id or kind column missing from the query result")
	}
	out := make([]kgmem.VectorKey, 0, ids.Len())
	for i := 0; i < ids.Len(); i++ {
		id, err := ids.ValueByIdx(i)
		if err != nil {
			return nil, fmt.Errorf("milvus list ids: row %d id: %w", i, err)
		}
		kind, err := kinds.ValueByIdx(i)
		if err != nil {
			return nil, fmt.Errorf("milvus list ids: row %d kind: %w", i, err)
		}
		out = append(out, kgmem.VectorKey{Kind: kgmem.Kind(kind), ID: id})
	}
	slices.SortFunc(out, func(a, b kgmem.VectorKey) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
