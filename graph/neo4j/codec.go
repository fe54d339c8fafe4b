package neo4j

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kgmem/kgmem"
)

// Conversions between kgmem records and the property maps stored in Neo4j.
// Absent optional values are nil, which SET n = $map leaves unset, so Browser
// shows only what a record has.

// scopeToken is the full-text token that every search entry of the stored
// namespace key carries, so a query is restricted to its namespace inside
// Lucene rather than by filtering the top hits afterwards.
func scopeToken(key string) string { return "ns" + keyHash(key) }

// currentToken additionally marks the search entries of facts that are not
// expired, so the default search skips history inside Lucene too.
func currentToken(key string) string { return "cur" + keyHash(key) }

func keyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:12])
}

// nameKeys is the indexed lookup string of an entity's names: one line per
// distinct normalised name or alias, each prefixed with the namespace hash,
// between newlines ("\n<hash>:bob smith\n<hash>:bob\n"). NormalizeName never
// leaves a newline inside a name, so nameKey(key, name) found with CONTAINS
// in the TEXT index is an exact match of one whole name in one namespace.
func nameKeys(key string, names []string) string {
	var b strings.Builder
	b.WriteByte('\n')
	seen := map[string]bool{}
	for _, n := range names {
		norm := kgmem.NormalizeName(n)
		if norm == "" || seen[norm] {
			continue
		}
		seen[norm] = true
		b.WriteString(keyHash(key))
		b.WriteByte(':')
		b.WriteString(norm)
		b.WriteByte('\n')
	}
	return b.String()
}

// nameKey is the CONTAINS needle that finds entities of the namespace key
// with the normalised name norm.
func nameKey(key, norm string) string { return "\n" + keyHash(key) + ":" + norm + "\n" }

// timeValue is t in UTC, or nil for the zero time.
func timeValue(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// jsonValue encodes a non-empty map as a JSON string, or nil.
func jsonValue(field string, m map[string]any) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, kgmem.Invalidf(field, "cannot be encoded as JSON: %v", err)
	}
	return string(b), nil
}

// listValue is a non-empty string list, or nil.
func listValue(xs []string) any {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

// decayProps adds the decay state to props.
func decayProps(props map[string]any, d kgmem.DecayState) {
	props["stability"] = d.Stability
	props["last_reinforced_at"] = timeValue(d.LastReinforcedAt)
	props["reinforcements"] = int64(d.Reinforcements)
	props["pinned"] = d.Pinned
	props["forgotten_at"] = timeValue(d.ForgottenAt)
}

// entityProps is the property map of e stored under the namespace key.
func entityProps(key, field string, e kgmem.Entity) (map[string]any, error) {
	attrs, err := jsonValue(field+".attributes", e.Attributes)
	if err != nil {
		return nil, err
	}
	lower := make([]string, 0, len(e.Aliases)+1)
	for _, n := range e.Names() {
		lower = append(lower, strings.ToLower(n))
	}
	p := map[string]any{
		"id": e.ID, "namespace": key, "name": e.Name, "norm_name": kgmem.NormalizeName(e.Name),
		"aliases": listValue(e.Aliases), "name_keys": nameKeys(key, e.Names()), "lower_names": lower,
		"type": e.Type, "summary": e.Summary, "attributes": attrs,
		"created_at": timeValue(e.CreatedAt), "updated_at": timeValue(e.UpdatedAt),
		"ft_scope": scopeToken(key), "ft_text": strings.Join(e.Names(), "\n"), "ft_en": foldText(strings.Join(e.Names(), "\n")),
	}
	decayProps(p, e.Decay)
	return p, nil
}

// episodeProps is the property map of e stored under the namespace key.
func episodeProps(key, field string, e kgmem.Episode) (map[string]any, error) {
	meta, err := jsonValue(field+".metadata", e.Metadata)
	if err != nil {
		return nil, err
	}
	p := map[string]any{
		"id": e.ID, "namespace": key, "thread_id": e.ThreadID, "message_id": e.MessageID,
		"role": e.Role, "name": e.Name, "content": e.Content, "metadata": meta,
		"timestamp": timeValue(e.Timestamp), "created_at": timeValue(e.CreatedAt),
		"ft_scope": scopeToken(key), "ft_text": e.Name + "\n" + e.Content, "ft_en": foldText(e.Name + "\n" + e.Content),
	}
	decayProps(p, e.Decay)
	return p, nil
}

// factProps is the property map of the relationship that stores f.
func factProps(key, field string, f kgmem.Fact) (map[string]any, error) {
	attrs, err := jsonValue(field+".attributes", f.Attributes)
	if err != nil {
		return nil, err
	}
	p := map[string]any{
		"id": f.ID, "namespace": key, "predicate": f.Predicate, "fact": f.Text,
		"subject_id": f.SubjectID, "object_id": f.ObjectID,
		"confidence": f.Confidence, "importance": int64(f.Importance),
		"episodes": listValue(f.Episodes), "attributes": attrs,
		"valid_at": timeValue(f.ValidAt), "invalid_at": timeValue(f.InvalidAt),
		"created_at": timeValue(f.CreatedAt), "expired_at": timeValue(f.ExpiredAt),
	}
	decayProps(p, f.Decay)
	return p, nil
}

// factTextProps is the property map of the (:FactText) index node of f.
func factTextProps(key string, f kgmem.Fact) map[string]any {
	scope := scopeToken(key)
	if f.ExpiredAt.IsZero() {
		scope += " " + currentToken(key)
	}
	return map[string]any{
		"id": f.ID, "namespace": key, "subject_id": f.SubjectID, "object_id": f.ObjectID,
		"predicate": f.Predicate, "rel_type": RelType(f.Predicate), "expired": !f.ExpiredAt.IsZero(),
		"ft_scope": scope, "ft_text": f.Text, "ft_en": foldText(f.Text),
	}
}

// props reads typed values out of a property map, remembering the first
// type mismatch (a record not written by this package).
type props struct {
	m   map[string]any
	err error
}

func (p *props) fail(k string, v any) {
	if p.err == nil {
		p.err = fmt.Errorf("property %s has unexpected type %T", k, v)
	}
}

func (p *props) str(k string) string {
	switch v := p.m[k].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		p.fail(k, v)
		return ""
	}
}

func (p *props) float(k string) float64 {
	switch v := p.m[k].(type) {
	case nil:
		return 0
	case float64:
		return v
	case int64:
		return float64(v)
	default:
		p.fail(k, v)
		return 0
	}
}

func (p *props) int(k string) int {
	switch v := p.m[k].(type) {
	case nil:
		return 0
	case int64:
		return int(v)
	default:
		p.fail(k, v)
		return 0
	}
}

func (p *props) bool(k string) bool {
	switch v := p.m[k].(type) {
	case nil:
		return false
	case bool:
		return v
	default:
		p.fail(k, v)
		return false
	}
}

func (p *props) time(k string) time.Time {
	switch v := p.m[k].(type) {
	case nil:
		return time.Time{}
	case time.Time:
		return v.UTC()
	default:
		p.fail(k, v)
		return time.Time{}
	}
}

func (p *props) strings(k string) []string {
	switch v := p.m[k].(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				p.fail(k, x)
			}
			out[i] = s
		}
		return out
	default:
		p.fail(k, v)
		return nil
	}
}

func (p *props) json(k string) map[string]any {
	s := p.str(k)
	if s == "" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil && p.err == nil {
		p.err = fmt.Errorf("property %s: %w", k, err)
	}
	return m
}

func (p *props) decay() kgmem.DecayState {
	return kgmem.DecayState{
		Stability: p.float("stability"), LastReinforcedAt: p.time("last_reinforced_at"),
		Reinforcements: p.int("reinforcements"), Pinned: p.bool("pinned"), ForgottenAt: p.time("forgotten_at"),
	}
}

// decodeEntity reads an entity node's properties; ns is the caller's namespace.
func decodeEntity(ns kgmem.Namespace, m map[string]any) (kgmem.Entity, error) {
	p := &props{m: m}
	e := kgmem.Entity{
		ID: p.str("id"), Namespace: ns, Name: p.str("name"), Aliases: p.strings("aliases"),
		Type: p.str("type"), Summary: p.str("summary"), Attributes: p.json("attributes"),
		CreatedAt: p.time("created_at"), UpdatedAt: p.time("updated_at"), Decay: p.decay(),
	}
	if p.err != nil {
		return e, fmt.Errorf("decode entity %s: %w", e.ID, p.err)
	}
	return e, nil
}

// decodeEpisode reads an episode node's properties.
func decodeEpisode(ns kgmem.Namespace, m map[string]any) (kgmem.Episode, error) {
	p := &props{m: m}
	e := kgmem.Episode{
		ID: p.str("id"), Namespace: ns, ThreadID: p.str("thread_id"), MessageID: p.str("message_id"),
		Role: p.str("role"), Name: p.str("name"), Content: p.str("content"), Metadata: p.json("metadata"),
		Timestamp: p.time("timestamp"), CreatedAt: p.time("created_at"), Decay: p.decay(),
	}
	if p.err != nil {
		return e, fmt.Errorf("decode episode %s: %w", e.ID, p.err)
	}
	return e, nil
}

// decodeFact reads a fact relationship's properties and its ends' names.
func decodeFact(ns kgmem.Namespace, m map[string]any, subjectName, objectName string) (kgmem.Fact, error) {
	p := &props{m: m}
	f := kgmem.Fact{
		ID: p.str("id"), Namespace: ns, SubjectID: p.str("subject_id"), Predicate: p.str("predicate"),
		ObjectID: p.str("object_id"), SubjectName: subjectName, ObjectName: objectName,
		Text: p.str("fact"), Confidence: p.float("confidence"), Importance: p.int("importance"),
		Episodes: p.strings("episodes"), Attributes: p.json("attributes"),
		ValidAt: p.time("valid_at"), InvalidAt: p.time("invalid_at"),
		CreatedAt: p.time("created_at"), ExpiredAt: p.time("expired_at"), Decay: p.decay(),
	}
	if p.err != nil {
		return f, fmt.Errorf("decode fact %s: %w", f.ID, p.err)
	}
	return f, nil
}

// deletedWhileRead tells the properties of a node that a concurrent
// transaction deleted after the query matched it and before it read them:
// Neo4j reads committed data, and such a node comes back with no
// properties. It is left out, as it would be by a read a moment later;
// decoded, it would be a record of empty fields (an item whose value is
// not JSON).
func deletedWhileRead(props map[string]any) bool {
	_, ok := props["id"]
	return !ok
}
