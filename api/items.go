package api

import (
	"net/http"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/auth"
	"github.com/kgmem/kgmem/memory"
	"github.com/labstack/echo/v4"
)

// putItem upserts one item: 201 when it creates the key, 200 when it
// overwrites it.
func (s *Server) putItem(c echo.Context) error {
	var body wire.ItemRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	ns, err := kgmem.ParseNamespace(string(body.Namespace))
	if err != nil {
		return err
	}
	if len(body.Value) == 0 {
		return kgmem.Invalidf("value", "is required")
	}
	res, err := s.engine.PutItem(c.Request().Context(), memory.PutItemRequest{
		Namespace: ns, Key: body.Key, Value: body.Value, Index: body.IndexFields(), Extract: body.Extract, TTL: body.TTL,
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	return c.JSON(status, wire.ItemPutResult{Item: res.Item, Facts: res.Facts, Usage: res.Usage, Warnings: res.Warnings})
}

// itemParams reads ?namespace= and ?key=.
func itemParams(c echo.Context) (kgmem.Namespace, string, error) {
	ns, err := namespaceParam(c)
	if err != nil {
		return "", "", err
	}
	if !c.QueryParams().Has("key") {
		return "", "", kgmem.Invalidf("key", "query parameter is required")
	}
	key, err := queryParam(c, "key")
	return ns, key, err
}

// itemRead is what an item read takes for items with a TTL: refresh_ttl
// (default true, as LangGraph's) and include_expired (default false).
func itemRead(refreshTTL *bool, includeExpired bool) memory.ItemRead {
	return memory.ItemRead{RefreshTTL: refreshTTL == nil || *refreshTTL, IncludeExpired: includeExpired}
}

// itemReadParams reads ?refresh_ttl= and ?include_expired=.
func itemReadParams(c echo.Context) (memory.ItemRead, error) {
	refresh, err := boolParam(c, "refresh_ttl")
	if err != nil {
		return memory.ItemRead{}, err
	}
	include, err := boolParam(c, "include_expired")
	if err != nil {
		return memory.ItemRead{}, err
	}
	if !c.QueryParams().Has("refresh_ttl") {
		return itemRead(nil, include), nil
	}
	return itemRead(&refresh, include), nil
}

func (s *Server) getItem(c echo.Context) error {
	ns, key, err := itemParams(c)
	if err != nil {
		return err
	}
	read, err := itemReadParams(c)
	if err != nil {
		return err
	}
	it, err := s.engine.Item(c.Request().Context(), ns, key, read)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, it)
}

func (s *Server) deleteItem(c echo.Context) error {
	ns, key, err := itemParams(c)
	if err != nil {
		return err
	}
	if err := s.engine.DeleteItem(c.Request().Context(), ns, key); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Server) searchItems(c echo.Context) error {
	var body wire.ItemSearchRequest
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	filter, err := kgmem.ParseItemFilter(body.Filter)
	if err != nil {
		return err
	}
	items, warnings, err := s.engine.SearchItems(c.Request().Context(), memory.ItemSearchRequest{
		Prefix: kgmem.Namespace(body.NamespacePrefix), Query: body.Query, Filter: filter,
		Limit: body.Limit, Offset: body.Offset, Reinforce: body.Reinforce == nil || *body.Reinforce,
		Read: itemRead(body.RefreshTTL, body.IncludeExpired),
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wire.ItemList{Items: convertAll(items, wireItemResult), Warnings: warnings})
}

// listItemNamespaces lists the namespaces with items below ?prefix= (all
// when absent) that the key may read: those with a live item, or with any
// item when ?include_expired=true.
func (s *Server) listItemNamespaces(c echo.Context) error {
	raw, err := queryParam(c, "prefix")
	if err != nil {
		return err
	}
	var prefix kgmem.Namespace
	if c.QueryParams().Has("prefix") {
		if prefix, err = kgmem.ParseNamespaceField("prefix", raw); err != nil {
			return err
		}
	}
	include, err := boolParam(c, "include_expired")
	if err != nil {
		return err
	}
	all, err := s.engine.ItemNamespaces(c.Request().Context(), prefix, include)
	if err != nil {
		return err
	}
	p, keyed := principal(c)
	out := wire.ItemNamespaceList{Namespaces: make([]kgmem.Namespace, 0, len(all))}
	for _, ns := range all {
		if !keyed || p.Allows(ns, auth.Read) {
			out.Namespaces = append(out.Namespaces, ns)
		}
	}
	return c.JSON(http.StatusOK, out)
}
