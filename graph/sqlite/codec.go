package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/kgmem/kgmem"
	"golang.org/x/text/unicode/norm"
)

// millis encodes t as unix milliseconds, NULL for the zero time.
func millis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// fromMillis decodes what millis encoded, in UTC.
func fromMillis(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

// jsonMap encodes a map as JSON text, NULL when empty.
func jsonMap(field string, m map[string]any) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, kgmem.Invalidf(field, "cannot be encoded as JSON: %v", err)
	}
	return string(b), nil
}

// fromJSONMap decodes what jsonMap encoded. The stored lists and maps are
// decoded with goccy/go-json: the values encoding/json gives
// (TestDecodeStoredAsEncodingJSON) in a third to a quarter of the time and
// two thirds of the allocations (BenchmarkDecodeStored: a fact's episode
// list and attributes), for every fact, entity and episode a read loads.
func fromJSONMap(v sql.NullString) (map[string]any, error) {
	if !v.Valid || v.String == "" {
		return nil, nil
	}
	var m map[string]any
	if err := gojson.Unmarshal([]byte(v.String), &m); err != nil {
		return nil, fmt.Errorf("decode stored map: %w", err)
	}
	return m, nil
}

// storedMap is the map jsonMap's result m decodes to when read back.
func storedMap(m any) (map[string]any, error) {
	text, ok := m.(string)
	return fromJSONMap(sql.NullString{String: text, Valid: ok})
}

// jsonList encodes a string list as a JSON array ("[]" when empty).
func jsonList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l) // a []string always encodes
	return string(b)
}

// fromJSONList decodes what jsonList encoded; an empty list is nil.
func fromJSONList(s string) ([]string, error) {
	var l []string
	if err := gojson.Unmarshal([]byte(s), &l); err != nil {
		return nil, fmt.Errorf("decode stored list: %w", err)
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}

// decayCols scans the five decay columns every record table has.
type decayCols struct {
	stability      float64
	reinforcedAt   sql.NullInt64
	reinforcements int
	pinned         bool
	forgottenAt    sql.NullInt64
}

// dest returns scan destinations in column order.
func (d *decayCols) dest() []any {
	return []any{&d.stability, &d.reinforcedAt, &d.reinforcements, &d.pinned, &d.forgottenAt}
}

// state converts the scanned columns.
func (d *decayCols) state() kgmem.DecayState {
	return kgmem.DecayState{
		Stability: d.stability, LastReinforcedAt: fromMillis(d.reinforcedAt),
		Reinforcements: d.reinforcements, Pinned: d.pinned, ForgottenAt: fromMillis(d.forgottenAt),
	}
}

// storedTime is t as the file keeps it: milliseconds, in UTC.
func storedTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.UnixMilli(t.UnixMilli()).UTC()
}

// storedDecay is d as reading it back from the file gives it.
func storedDecay(d kgmem.DecayState) kgmem.DecayState {
	d.LastReinforcedAt, d.ForgottenAt = storedTime(d.LastReinforcedAt), storedTime(d.ForgottenAt)
	return d
}

// decayArgs returns the decay state as arguments in column order.
func decayArgs(d kgmem.DecayState) []any {
	return []any{d.Stability, millis(d.LastReinforcedAt), d.Reinforcements, d.Pinned, millis(d.ForgottenAt)}
}

// namesSeparator joins an entity's lower-cased names for substring matching;
// a control character no query contains, so a match never spans two names.
const namesSeparator = "\x1f"

// lowerKey is the substring-matching form of a name or query: NFKC, lower case.
func lowerKey(s string) string {
	return strings.ToLower(norm.NFKC.String(s))
}

// namesLower joins the lower-cased name and aliases of e.
func namesLower(e kgmem.Entity) string {
	parts := make([]string, 0, 1+len(e.Aliases))
	for _, n := range e.Names() {
		parts = append(parts, lowerKey(n))
	}
	return namesSeparator + strings.Join(parts, namesSeparator) + namesSeparator
}

// nsToken is the FTS token that stands for a namespace in the ns column of
// the full-text tables: letters then digits, which no tokenizer or stemmer
// alters.
func nsToken(ns kgmem.Namespace) string { return fmt.Sprintf("ns%d", nsHash(ns)) }

// wordPrefix is glued to the front of every indexed and searched word of ns
// (see indexText). FTS5 keeps one posting list per token and computes BM25's
// document frequencies over the whole table, so without the prefix a search
// in a small namespace would still walk the posting lists of every namespace.
// The prefix is 12 of 16 consonants (48 bits of hash): consonants merge with
// a word's leading consonants, which leaves the Porter stemmer's measure, and
// so its stemming of the word, unchanged. If two namespaces ever shared a
// prefix, the id lookup after the match still drops the other's records.
func wordPrefix(ns kgmem.Namespace) string {
	const consonants = "bcdfghjklmnpqrst"
	h := nsHash(ns)
	b := make([]byte, 12)
	for i := range b {
		b[i] = consonants[h&15]
		h >>= 4
	}
	return string(b)
}

// nsHash is the 64-bit FNV-1a hash of ns.
func nsHash(ns kgmem.Namespace) uint64 {
	h := fnv.New64a()
	h.Write([]byte(ns))
	return h.Sum64()
}
