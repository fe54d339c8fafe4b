package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
)

// expiredPage is how many expired items the TTL sweep reads per call.
const expiredPage = 200

// SweepExpiredItems deletes the items of every namespace whose TTL ran out,
// as DeleteItem does (their vectors, and their facts' provenance), and
// reports how many it deleted. It stops when ctx ends (a deadline per
// sweep), returning what it deleted and ctx's error; the next sweep goes
// on. Servers sharing one database may sweep at once: each deletion takes
// the namespace's lock and checks the item is still expired.
func (e *Engine) SweepExpiredItems(ctx context.Context) (int, error) {
	nss, err := e.graph.ItemNamespaces(ctx, "", time.Time{})
	if err != nil {
		return 0, fmt.Errorf("list item namespaces: %w", err)
	}
	deleted := 0
	for _, ns := range nss {
		n, err := e.sweepExpired(ctx, ns)
		deleted += n
		if err != nil {
			return deleted, err
		}
	}
	return deleted, nil
}

// sweepExpired deletes the expired items of ns.
func (e *Engine) sweepExpired(ctx context.Context, ns kgmem.Namespace) (int, error) {
	deleted := 0
	for {
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		ids, err := e.graph.ExpiredItems(ctx, ns, e.now(), expiredPage)
		if err != nil {
			return deleted, fmt.Errorf("list the expired items of %q: %w", ns, err)
		}
		n, err := e.deleteExpired(ctx, ns, ids)
		deleted += n
		if err != nil {
			return deleted, err
		}
		if len(ids) < expiredPage || n == 0 {
			return deleted, nil
		}
	}
}

// deleteExpired deletes the items of ids that are still expired, under
// the namespace's lock.
func (e *Engine) deleteExpired(ctx context.Context, ns kgmem.Namespace, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return 0, err
	}
	defer unlock()
	items, err := e.graph.Items(ctx, ns, ids)
	if err != nil {
		return 0, fmt.Errorf("read the expired items of %q: %w", ns, err)
	}
	deleted := 0
	now := e.now()
	for _, it := range items {
		if !it.Expired(now) {
			continue // refreshed or put again since it was listed
		}
		err := e.deleteItem(ctx, it)
		if errors.Is(err, kgmem.ErrNotFound) {
			continue // another server deleted it first
		}
		if err != nil {
			return deleted, fmt.Errorf("delete expired item %q of %q: %w", it.Key, ns, err)
		}
		deleted++
	}
	return deleted, nil
}
