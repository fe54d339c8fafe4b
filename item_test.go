package kgmem_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

func TestItemText(t *testing.T) {
	value := json.RawMessage(`{"content":"Rosa likes tea","profile":{"name":"Rosa","age":41},"tags":["home","family"],"flag":true,"empty":"  "}`)
	tests := []struct {
		name   string
		fields []string
		want   string
	}{
		{"whole value, members in key order", nil, "Rosa likes tea\ntrue\n41\nRosa\nhome\nfamily"},
		{"no index", []string{}, ""},
		{"one member", []string{"content"}, "Rosa likes tea"},
		{"nested member", []string{"profile.name"}, "Rosa"},
		{"every element", []string{"tags[*]"}, "home\nfamily"},
		{"one element", []string{"tags[1]"}, "family"},
		{"element out of range", []string{"tags[7]"}, ""},
		{"absent member", []string{"nope", "content"}, "Rosa likes tea"},
		{"the whole value by $", []string{"$"}, "Rosa likes tea\ntrue\n41\nRosa\nhome\nfamily"},
		{"an object member", []string{"profile"}, "41\nRosa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := kgmem.ItemText(value, tt.fields)
			if err != nil || got != tt.want {
				t.Errorf("ItemText(%v) = %q, %v; want %q", tt.fields, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "a[", "a[x]", "a..b", "[1]", "a[-1]"} {
		_, err := kgmem.ItemText(value, []string{bad})
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrUnprocessable) || !errors.As(err, &fe) || fe.Field != "index[0]" {
			t.Errorf("ItemText field %q: %v; want a 422 on index[0]", bad, err)
		}
	}
	if _, err := kgmem.ItemText(value, make([]string, kgmem.MaxItemIndexFields+1)); !errors.Is(err, kgmem.ErrInvalid) {
		t.Errorf("too many fields: %v", err)
	}
}

func TestItemFilter(t *testing.T) {
	value := json.RawMessage(`{"kind":"food","score":7,"tags":["a","b"],"meta":{"lang":"en","v":2},"none":null}`)
	tests := []struct {
		filter string
		want   bool
	}{
		{`{}`, true},
		{`null`, true},
		{`{"kind":"food"}`, true},
		{`{"kind":"drink"}`, false},
		{`{"score":7.0}`, true},
		{`{"tags":["a","b"]}`, true},
		{`{"tags":["a"]}`, false},
		{`{"meta":{"lang":"en"}}`, true},
		{`{"meta":{"lang":"fr"}}`, false},
		{`{"missing":null}`, true},
		{`{"none":null}`, true},
		{`{"score":{"$gt":5,"$lte":7}}`, true},
		{`{"score":{"$gte":8}}`, false},
		{`{"score":{"$lt":7}}`, false},
		{`{"kind":{"$ne":"drink"}}`, true},
		{`{"kind":{"$eq":"food"},"score":{"$ne":7}}`, false},
		{`{"kind":{"$gt":1}}`, false},
		{`{"missing":{"$lt":1}}`, false},
	}
	for _, tt := range tests {
		f, err := kgmem.ParseItemFilter(json.RawMessage(tt.filter))
		if err != nil {
			t.Fatalf("ParseItemFilter(%s): %v", tt.filter, err)
		}
		if got := f.Match(value); got != tt.want {
			t.Errorf("filter %s matches = %v, want %v", tt.filter, got, tt.want)
		}
	}
	for filter, field := range map[string]string{
		`{"score":{"$regex":"x"}}`: "filter.score.$regex",
		`{"score":{"$gt":"5"}}`:    "filter.score.$gt",
	} {
		_, err := kgmem.ParseItemFilter(json.RawMessage(filter))
		var fe *kgmem.FieldError
		if !errors.Is(err, kgmem.ErrUnprocessable) || !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("ParseItemFilter(%s) = %v; want a 422 on %s", filter, err, field)
		}
	}
	if _, err := kgmem.ParseItemFilter(json.RawMessage(`[1]`)); !errors.Is(err, kgmem.ErrInvalid) || errors.Is(err, kgmem.ErrUnprocessable) {
		t.Errorf("a filter that is not an object: %v; want a 400", err)
	}
}

func TestItemKeyAndID(t *testing.T) {
	if kgmem.ItemID("a", "k") == kgmem.ItemID("b", "k") || kgmem.ItemID("a", "k") == kgmem.ItemID("a", "k2") {
		t.Error("item ids collide across namespaces or keys")
	}
	if !strings.HasPrefix(kgmem.ItemID("a", "k"), "it_") {
		t.Error("item ids do not start with it_")
	}
	for key, ok := range map[string]bool{"k": true, "": false, "a\x00b": false, "\xff": false, strings.Repeat("é", 600): false, strings.Repeat("x", 1024): true} {
		if err := kgmem.CheckItemKey("key", key); (err == nil) != ok {
			t.Errorf("CheckItemKey(%.20q) = %v, want ok %v", key, err, ok)
		}
	}
	if !kgmem.Namespace("mem").Covers("mem/u1") || kgmem.Namespace("mem").Covers("memx") || kgmem.Namespace("").Covers("a") {
		t.Error("Namespace.Covers does not go segment by segment")
	}
}
