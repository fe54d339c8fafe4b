// Package procedural keeps procedural memory, an agent's instructions (its
// system prompt), in kgmem's item store with their history: every update
// writes a new version and keeps the previous ones, any version can be read,
// and restoring an earlier version writes a new version equal to it, so a
// restore is itself undoable. LangMem's prompt optimizer rewrites them from
// feedback through the Python package (kgmem.instructions); agents read and
// update them through the MCP tools.
//
// The instructions named name of namespace ns are the items of the namespace
// ns/instructions/name, one item per version, never overwritten: its key is
// the time of the write and a random suffix, so concurrent updates each keep
// their version; versions are numbered from 1 in the order the server
// created them. The items are not indexed: instructions are read by name,
// never returned by a search.
package procedural

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
)

// Limits of instructions.
const (
	// MaxPromptBytes bounds the text of one version.
	MaxPromptBytes = 32 << 10
	// MaxNoteBytes bounds the note of one version.
	MaxNoteBytes = 1024
	// DefaultName is the name of an agent's instructions when none is given.
	DefaultName = "agent"
	// segment is the namespace segment below which instructions are kept.
	segment = "instructions"
	// listPage is how many versions one item listing reads.
	listPage = 100
)

// ErrNoInstructions is wrapped by the errors of reads of instructions that
// have no version yet; it wraps kgmem.ErrNotFound.
var ErrNoInstructions = fmt.Errorf("no version yet (%w)", kgmem.ErrNotFound)

// Version is one version of an agent's instructions.
type Version struct {
	// Number counts the versions from 1, oldest first.
	Number int `json:"version"`
	// Prompt is the instructions' text.
	Prompt string `json:"prompt"`
	// Note says why this version was written (optional).
	Note string `json:"note,omitempty"`
	// RestoredFrom is the version this one restored, 0 when it is new text.
	RestoredFrom int `json:"restored_from,omitempty"`
	// CreatedAt is when the version was written.
	CreatedAt time.Time `json:"created_at"`
	// Key is the version's item key in Namespace (Instructions.Namespace).
	Key string `json:"key"`
}

// value is a version as its item stores it.
type value struct {
	Prompt       string `json:"prompt"`
	Note         string `json:"note,omitempty"`
	RestoredFrom int    `json:"restored_from,omitempty"`
}

// Store is the item store instructions are kept in: kgmem's REST API
// through the Go client (ClientStore) or the engine itself (EngineStore).
type Store interface {
	// PutItem writes a new item, its text not indexed.
	PutItem(ctx context.Context, ns kgmem.Namespace, key string, value json.RawMessage) (kgmem.Item, error)
	// ListItems lists the items of ns and of the namespaces below it, most
	// recently updated first.
	ListItems(ctx context.Context, ns kgmem.Namespace, offset, limit int) ([]kgmem.Item, error)
}

// Instructions are one agent's instructions, by namespace and name.
type Instructions struct {
	store Store
	// Namespace holds the versions' items: ns/instructions/name.
	Namespace kgmem.Namespace
	// Name names the instructions within their namespace.
	Name string
}

// Open returns the instructions named name (DefaultName when empty) of ns.
// name is a namespace segment (letters, digits, '_', '.', '-'); bad input
// is a kgmem.FieldError naming "name" or "namespace".
func Open(store Store, ns kgmem.Namespace, name string) (*Instructions, error) {
	if name == "" {
		name = DefaultName
	}
	if _, err := kgmem.ParseNamespace(string(ns)); err != nil {
		return nil, err
	}
	if strings.Contains(name, "/") {
		return nil, kgmem.Invalidf("name", "contains '/'; a name is one segment of letters, digits, '_', '.' and '-'")
	}
	if _, err := kgmem.ParseNamespaceField("name", name); err != nil {
		return nil, err
	}
	full, err := kgmem.ParseNamespace(string(ns) + "/" + segment + "/" + name)
	if err != nil {
		return nil, kgmem.Invalidf("namespace", "is too deep to keep instructions below it: at most %d segments", kgmem.MaxNamespaceDepth-2)
	}
	return &Instructions{store: store, Namespace: full, Name: name}, nil
}

// Versions returns every version, oldest first.
func (in *Instructions) Versions(ctx context.Context) ([]Version, error) {
	var items []kgmem.Item
	// A version written while the pages are read shifts them by one: an
	// item read twice is kept once.
	seen := map[string]bool{}
	for offset := 0; ; offset += listPage {
		page, err := in.store.ListItems(ctx, in.Namespace, offset, listPage)
		if err != nil {
			return nil, fmt.Errorf("list the versions of instructions %q: %w", in.Name, err)
		}
		for _, it := range page {
			if it.Namespace == in.Namespace && !seen[it.Key] {
				seen[it.Key] = true
				items = append(items, it)
			}
		}
		if len(page) < listPage {
			break
		}
	}
	slices.SortFunc(items, func(a, b kgmem.Item) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Key, b.Key))
	})
	out := make([]Version, 0, len(items))
	for i, it := range items {
		var v value
		if err := json.Unmarshal(it.Value, &v); err != nil {
			return nil, fmt.Errorf("version %d (item %q) of instructions %q: %w", i+1, it.Key, in.Name, err)
		}
		out = append(out, Version{Number: i + 1, Prompt: v.Prompt, Note: v.Note, RestoredFrom: v.RestoredFrom, CreatedAt: it.CreatedAt, Key: it.Key})
	}
	return out, nil
}

// Current returns the latest version, or an error wrapping
// ErrNoInstructions when there is none.
func (in *Instructions) Current(ctx context.Context) (Version, error) {
	return in.Version(ctx, 0)
}

// Version returns version n (from 1), or the latest when n is 0. A version
// that does not exist is a kgmem.FieldError naming "version" that wraps
// kgmem.ErrNotFound; the latest when there is none an error wrapping
// ErrNoInstructions.
func (in *Instructions) Version(ctx context.Context, n int) (Version, error) {
	vs, err := in.Versions(ctx)
	if err != nil {
		return Version{}, err
	}
	return in.pick(vs, n)
}

// pick returns version n of vs, the latest for 0.
func (in *Instructions) pick(vs []Version, n int) (Version, error) {
	switch {
	case n < 0:
		return Version{}, kgmem.Invalidf("version", "is %d, must be at least 1", n)
	case n == 0 && len(vs) == 0:
		return Version{}, fmt.Errorf("instructions %q: %w", in.Name, ErrNoInstructions)
	case n == 0:
		return vs[len(vs)-1], nil
	case n > len(vs):
		return Version{}, kgmem.NotFoundf("version", "is %d; instructions %q have %d versions", n, in.Name, len(vs))
	}
	return vs[n-1], nil
}

// Update writes prompt as a new version, note saying why (optional), and
// returns it. The previous versions are kept.
func (in *Instructions) Update(ctx context.Context, prompt, note string) (Version, error) {
	if err := checkText("prompt", prompt, MaxPromptBytes); err != nil {
		return Version{}, err
	}
	if strings.TrimSpace(prompt) == "" {
		return Version{}, kgmem.Invalidf("prompt", "is empty")
	}
	if err := checkText("note", note, MaxNoteBytes); err != nil {
		return Version{}, err
	}
	return in.write(ctx, value{Prompt: prompt, Note: note})
}

// Restore writes version n again as a new version (its note, when empty,
// saying so) and returns it: the versions after n are kept, so a restore
// can be undone by restoring again.
func (in *Instructions) Restore(ctx context.Context, n int, note string) (Version, error) {
	if n < 1 {
		return Version{}, kgmem.Invalidf("version", "is %d, must be at least 1", n)
	}
	if err := checkText("note", note, MaxNoteBytes); err != nil {
		return Version{}, err
	}
	old, err := in.Version(ctx, n)
	if err != nil {
		return Version{}, err
	}
	if note == "" {
		note = fmt.Sprintf("restored version %d", n)
	}
	return in.write(ctx, value{Prompt: old.Prompt, Note: note, RestoredFrom: n})
}

// write stores v as a new version and returns it with its number.
func (in *Instructions) write(ctx context.Context, v value) (Version, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return Version{}, fmt.Errorf("encode a version of instructions %q: %w", in.Name, err)
	}
	key, err := newKey(time.Now())
	if err != nil {
		return Version{}, err
	}
	if _, err := in.store.PutItem(ctx, in.Namespace, key, raw); err != nil {
		return Version{}, fmt.Errorf("write a version of instructions %q: %w", in.Name, err)
	}
	vs, err := in.Versions(ctx)
	if err != nil {
		return Version{}, err
	}
	for _, got := range slices.Backward(vs) {
		if got.Key == key {
			return got, nil
		}
	}
	return Version{}, fmt.Errorf("instructions %q: the version just written (item %q) is not listed", in.Name, key)
}

// newKey returns a version's item key: the time of the write, then a random
// suffix, so that concurrent writers never overwrite each other's version.
func newKey(now time.Time) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("version key: %w", err)
	}
	return now.UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:]), nil
}

// checkText checks a text field: valid UTF-8, without NUL, at most max bytes.
func checkText(field, s string, max int) error {
	switch {
	case !utf8.ValidString(s):
		return kgmem.Invalidf(field, "is not valid UTF-8")
	case strings.ContainsRune(s, 0):
		return kgmem.Invalidf(field, "contains a NUL character")
	case len(s) > max:
		return kgmem.TooLong(field, s, max)
	}
	return nil
}
