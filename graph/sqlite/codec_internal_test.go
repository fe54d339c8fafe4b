package sqlite

import (
	"database/sql"
	"encoding/json"
	"reflect"
	"testing"
)

// storedJSON are texts as the store keeps them in its list and map columns,
// and a few it must read as encoding/json does (escapes, numbers, nesting).
var storedJSON = struct{ lists, maps []string }{
	lists: []string{
		`[]`,
		`["ep_000ae47a3934d9b50f47617f"]`,
		`["ep_000ae47a3934d9b50f47617f","ep_000aee1be32ea819528e5650","ep_000ef51724abc1815e624670"]`,
		`["caf\u00e9","\ud83d\ude00 emoji","tab\there","quote \" and \\ slash","<&>"]`,
	},
	maps: []string{
		`{}`,
		`{"kgmem_stated_end":"open"}`,
		`{"kgmem_restated_starts":["2024-01-14T00:02:00Z","2024-02-01T10:00:00Z"]}`,
		`{"n":1.5,"big":12345678901234567890,"neg":-0.25e-3,"t":true,"f":false,"z":null,"nested":{"a":[1,{"b":"c"}]},"u":"\u00e9\n"}`,
	},
}

// TestDecodeStoredAsEncodingJSON: the stored lists and maps decode to what
// encoding/json gives, and invalid text fails.
func TestDecodeStoredAsEncodingJSON(t *testing.T) {
	for _, text := range storedJSON.lists {
		var want []string
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			want = nil
		}
		got, err := fromJSONList(text)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("fromJSONList(%s) = %#v, %v; want %#v", text, got, err, want)
		}
	}
	for _, text := range storedJSON.maps {
		var want map[string]any
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		got, err := fromJSONMap(sql.NullString{String: text, Valid: true})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("fromJSONMap(%s) = %#v, %v; want %#v", text, got, err, want)
		}
	}
	for _, bad := range []string{`[`, `["a",]`, `{"a":}`, `[1]`} {
		if _, err := fromJSONList(bad); err == nil {
			t.Errorf("fromJSONList(%s) succeeded", bad)
		}
	}
	if _, err := fromJSONMap(sql.NullString{String: `{"a":`, Valid: true}); err == nil {
		t.Error("fromJSONMap of a truncated map succeeded")
	}
}

// BenchmarkDecodeStored decodes a fact's stored episode list and attributes.
func BenchmarkDecodeStored(b *testing.B) {
	list, attrs := storedJSON.lists[2], sql.NullString{String: storedJSON.maps[2], Valid: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fromJSONList(list); err != nil {
			b.Fatal(err)
		}
		if _, err := fromJSONMap(attrs); err != nil {
			b.Fatal(err)
		}
	}
}
