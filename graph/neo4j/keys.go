package neo4j

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/auth"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// labelKey is the node of an API key (auth.StoredKey): its digest, never
// the secret.
const labelKey = "KgmemKey"

// Keys returns the API key records kept in this store's database, under
// its scope: every server on the database shares them, so a key created or
// revoked through one is seen by the others on their next request.
func (s *Store) Keys() auth.KeyRecords { return keyRecords{s} }

// keyRecords implements auth.KeyRecords on the store's database.
type keyRecords struct{ s *Store }

// Close is a no-op: the store owns the connection.
func (keyRecords) Close() error { return nil }

func (r keyRecords) Insert(ctx context.Context, k auth.StoredKey) error {
	digest, created := k.Text()
	prefixes := make([]string, len(k.Prefixes))
	for i, p := range k.Prefixes {
		prefixes[i] = string(p)
	}
	err := r.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		_, err := run(ctx, tx, `CREATE (k:`+labelKey+` {scope: $scope, id: $id, name: $name, digest: $digest,
			rights: $right, prefixes: $prefixes, created_at: $created})`,
			map[string]any{"scope": r.s.cfg.Scope, "id": k.ID, "name": k.Name, "digest": digest, "right": string(k.Right),
				"prefixes": prefixes, "created": created})
		return err
	})
	if err != nil {
		return fmt.Errorf("neo4j: store key %s: %w", k.ID, err)
	}
	return nil
}

const keyReturn = ` RETURN k.id, k.name, k.digest, k.rights, k.prefixes, k.created_at, k.revoked_at`

func (r keyRecords) Get(ctx context.Context, id string) (auth.StoredKey, error) {
	keys, err := r.query(ctx, `MATCH (k:`+labelKey+` {scope: $scope, id: $id})`+keyReturn, map[string]any{"id": id})
	if err != nil {
		return auth.StoredKey{}, err
	}
	if len(keys) == 0 {
		return auth.StoredKey{}, fmt.Errorf("key %s: %w", id, kgmem.ErrNotFound)
	}
	return keys[0], nil
}

func (r keyRecords) All(ctx context.Context) ([]auth.StoredKey, error) {
	return r.query(ctx, `MATCH (k:`+labelKey+` {scope: $scope})`+keyReturn+` ORDER BY k.created_at, k.id`, nil)
}

func (r keyRecords) Revoke(ctx context.Context, id string, at time.Time) error {
	var found bool
	err := r.s.write(ctx, func(tx neo4j.ManagedTransaction) error {
		recs, err := run(ctx, tx, `MATCH (k:`+labelKey+` {scope: $scope, id: $id})
			SET k.revoked_at = coalesce(k.revoked_at, $at) RETURN count(k)`,
			map[string]any{"scope": r.s.cfg.Scope, "id": id, "at": at.UTC().Format(time.RFC3339)})
		if err == nil && len(recs) == 1 {
			n, _ := recs[0].Values[0].(int64)
			found = n > 0
		}
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("neo4j: revoke key %s: %w", id, err)
	case !found:
		return fmt.Errorf("key %s: %w", id, kgmem.ErrNotFound)
	}
	return nil
}

func (r keyRecords) Count(ctx context.Context) (int, error) {
	recs, err := r.s.read(ctx, stablePlan+`MATCH (k:`+labelKey+` {scope: $scope}) RETURN count(k)`, map[string]any{"scope": r.s.cfg.Scope})
	if err != nil {
		return 0, fmt.Errorf("neo4j: count keys: %w", err)
	}
	n, _ := recs[0].Values[0].(int64)
	return int(n), nil
}

// query reads keys with a query taking $scope (and params).
func (r keyRecords) query(ctx context.Context, query string, params map[string]any) ([]auth.StoredKey, error) {
	all := map[string]any{"scope": r.s.cfg.Scope}
	for k, v := range params {
		all[k] = v
	}
	recs, err := r.s.read(ctx, query, all)
	if err != nil {
		return nil, fmt.Errorf("neo4j: read keys: %w", err)
	}
	out := make([]auth.StoredKey, 0, len(recs))
	for _, rec := range recs {
		k, err := decodeKey(rec.Values)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// decodeKey reads the values of keyReturn.
func decodeKey(v []any) (auth.StoredKey, error) {
	str := func(i int) string { s, _ := v[i].(string); return s }
	k := auth.Key{ID: str(0), Name: str(1), Right: auth.Right(str(3))}
	list, _ := v[4].([]any)
	for _, p := range list {
		s, _ := p.(string)
		k.Prefixes = append(k.Prefixes, kgmem.Namespace(s))
	}
	var revoked *string
	if s, ok := v[6].(string); ok {
		revoked = &s
	}
	out, err := auth.ParseStored(k, str(2), str(5), revoked)
	if err != nil {
		return auth.StoredKey{}, errors.Join(fmt.Errorf("neo4j: decode key %s", k.ID), err)
	}
	return out, nil
}
