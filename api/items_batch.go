package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// itemBatch is one checked operation of POST /v1/items/batch.
type itemBatch struct {
	op     string
	put    memory.PutItemRequest
	ns     kgmem.Namespace
	key    string
	read   memory.ItemRead
	search memory.ItemSearchRequest
}

// batchItems runs up to wire.MaxItemBatchOps item operations in order and
// answers each one's result. Every operation is checked before any runs: a
// malformed one refuses the whole batch with a 400 naming it
// ("ops[3].key"), and the auth middleware has checked each operation's
// namespace against the key (the route table's nsBodyOps). An operation that
// fails as it runs (a missing key, a prefix too wide) gets its own error
// and the others run; a backend failure ends the batch with its 5xx.
func (s *Server) batchItems(c echo.Context) error {
	var body wire.ItemBatchRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	ops, err := s.checkItemBatch(body.Ops)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	out := wire.ItemBatchResult{Results: make([]wire.ItemOpResult, len(ops))}
	for i, op := range ops {
		var res wire.ItemOpResult
		var err error
		switch op.op {
		case wire.ItemOpPut:
			var r memory.PutItemResult
			if r, err = s.engine.PutItem(ctx, op.put); err == nil {
				res = wire.ItemOpResult{Status: http.StatusOK, Item: &r.Item, Facts: r.Facts, Warnings: r.Warnings}
				if r.Created {
					res.Status = http.StatusCreated
				}
			}
		case wire.ItemOpGet:
			var it kgmem.Item
			if it, err = s.engine.Item(ctx, op.ns, op.key, op.read); err == nil {
				res = wire.ItemOpResult{Status: http.StatusOK, Item: &it}
			}
		case wire.ItemOpDelete:
			if err = s.engine.DeleteItem(ctx, op.ns, op.key); err == nil {
				res = wire.ItemOpResult{Status: http.StatusNoContent}
			}
		case wire.ItemOpSearch:
			var items []memory.ItemResult
			var warnings []string
			if items, warnings, err = s.engine.SearchItems(ctx, op.search); err == nil {
				converted := convertAll(items, wireItemResult)
				res = wire.ItemOpResult{Status: http.StatusOK, Items: &converted, Warnings: warnings}
			}
		}
		if err != nil {
			status := statusOf(err)
			if status >= 500 || status == 499 {
				return fmt.Errorf("ops[%d]: %w", i, err)
			}
			res = wire.ItemOpResult{Status: status, Error: opError(i, status, err)}
		}
		out.Results[i] = res
	}
	return c.JSON(http.StatusOK, out)
}

// checkItemBatch checks every operation of a batch before any runs.
func (s *Server) checkItemBatch(raw []wire.ItemOp) ([]itemBatch, error) {
	switch {
	case raw == nil:
		return nil, kgmem.Invalidf("ops", "is required")
	case len(raw) > wire.MaxItemBatchOps:
		return nil, kgmem.Invalidf("ops", "has %d operations, at most %d are allowed", len(raw), wire.MaxItemBatchOps)
	}
	out := make([]itemBatch, len(raw))
	for i, op := range raw {
		b, err := s.checkItemOp(op)
		if err != nil {
			return nil, fieldIn(fmt.Sprintf("ops[%d]", i), err)
		}
		out[i] = b
	}
	return out, nil
}

// checkItemOp checks one operation as its own route would.
func (s *Server) checkItemOp(op wire.ItemOp) (itemBatch, error) {
	b := itemBatch{op: op.Op}
	if err := onlyMembersOf(op); err != nil {
		return b, err
	}
	switch op.Op {
	case wire.ItemOpPut, wire.ItemOpGet, wire.ItemOpDelete:
		ns, err := kgmem.ParseNamespace(string(op.Namespace))
		if err != nil {
			return b, err
		}
		if err := kgmem.CheckItemKey("key", op.Key); err != nil {
			return b, err
		}
		b.ns, b.key, b.read = ns, op.Key, itemRead(op.RefreshTTL, op.IncludeExpired)
		if op.Op != wire.ItemOpPut {
			return b, nil
		}
		if err := kgmem.CheckItemTTL("ttl", op.TTL); err != nil {
			return b, err
		}
		if len(op.Value) == 0 {
			return b, kgmem.Invalidf("value", "is required")
		}
		index := wire.ItemRequest{Index: op.Index}.IndexFields()
		if err := kgmem.CheckItemValue("value", op.Value); err != nil {
			return b, err
		}
		if _, err := kgmem.ItemText(op.Value, index); err != nil {
			return b, err
		}
		b.put = memory.PutItemRequest{Namespace: ns, Key: op.Key, Value: op.Value, Index: index, Extract: op.Extract, TTL: op.TTL}
		return b, nil
	case wire.ItemOpSearch:
		filter, err := kgmem.ParseItemFilter(op.Filter)
		if err != nil {
			return b, err
		}
		b.search = memory.ItemSearchRequest{Prefix: kgmem.Namespace(op.NamespacePrefix), Query: op.Query, Filter: filter,
			Limit: op.Limit, Offset: op.Offset, Reinforce: op.Reinforce == nil || *op.Reinforce,
			Read: itemRead(op.RefreshTTL, op.IncludeExpired)}
		return b, s.engine.CheckItemSearch(&b.search)
	case "":
		return b, kgmem.Invalidf("op", "is required: put, get, delete or search")
	}
	return b, kgmem.Invalidf("op", "is %q; use put, get, delete or search", op.Op)
}

// onlyMembersOf refuses a member the operation's kind does not take (a
// "value" on a get, a "query" on a put), as its own route would.
func onlyMembersOf(op wire.ItemOp) error {
	set := []struct {
		name string
		set  bool
		of   []string
	}{
		{"namespace", op.Namespace != "", []string{wire.ItemOpPut, wire.ItemOpGet, wire.ItemOpDelete}},
		{"key", op.Key != "", []string{wire.ItemOpPut, wire.ItemOpGet, wire.ItemOpDelete}},
		{"value", len(op.Value) > 0, []string{wire.ItemOpPut}},
		{"index", op.Index != nil, []string{wire.ItemOpPut}},
		{"extract", op.Extract, []string{wire.ItemOpPut}},
		{"namespace_prefix", op.NamespacePrefix != "", []string{wire.ItemOpSearch}},
		{"query", op.Query != "", []string{wire.ItemOpSearch}},
		{"filter", len(op.Filter) > 0 && string(op.Filter) != "null", []string{wire.ItemOpSearch}},
		{"limit", op.Limit != 0, []string{wire.ItemOpSearch}},
		{"offset", op.Offset != 0, []string{wire.ItemOpSearch}},
		{"reinforce", op.Reinforce != nil, []string{wire.ItemOpSearch}},
		{"ttl", op.TTL != nil, []string{wire.ItemOpPut}},
		{"refresh_ttl", op.RefreshTTL != nil, []string{wire.ItemOpGet, wire.ItemOpSearch}},
		{"include_expired", op.IncludeExpired, []string{wire.ItemOpGet, wire.ItemOpSearch}},
	}
	if !slices.Contains([]string{wire.ItemOpPut, wire.ItemOpGet, wire.ItemOpDelete, wire.ItemOpSearch}, op.Op) {
		return nil // the kind itself is refused
	}
	for _, m := range set {
		if m.set && !slices.Contains(m.of, op.Op) {
			return kgmem.Invalidf(m.name, "is not a member of a %s operation", op.Op)
		}
	}
	return nil
}

// fieldIn names a field error's field inside the path ("ops[3]" + "key").
func fieldIn(path string, err error) error {
	var fe *kgmem.FieldError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return &kgmem.FieldError{Field: path + "." + fe.Field, Reason: fe.Reason, Kind: fe.Kind}
}

// opError is the problem of operation i that failed with a 4xx.
func opError(i int, status int, err error) *wire.ItemOpError {
	err = fieldIn(fmt.Sprintf("ops[%d]", i), err)
	p := &wire.ItemOpError{Title: http.StatusText(status), Status: status, Detail: err.Error()}
	var fe *kgmem.FieldError
	if errors.As(err, &fe) {
		p.Field = fe.Field
	}
	return p
}
