package api

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/kgmem/kgmem/decay"
	"github.com/kgmem/kgmem/jobs"
	"github.com/kgmem/kgmem/memory"
)

var updateWire = flag.Bool("update-wire", false, "rewrite api/testdata/wire/*.json from the conversions")

// fillMode says how fill sets the slices, maps and pointers it meets.
type fillMode int

const (
	// filled: every slice has two elements, every pointer and map is set.
	filled fillMode = iota
	// empty: every slice and map is empty but not nil, pointers are nil.
	empty
)

// fill sets every exported field of the value v points to, recursively,
// to a value that differs from field to field (a counter), so that a
// conversion that drops, swaps or misnames a field encodes differently.
func fill(v reflect.Value, mode fillMode, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("any%d", *n)))
	case reflect.Pointer:
		if mode == empty {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), mode, n)
		v.Set(p)
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(fmt.Sprintf(`{"raw":%d}`, *n)))
			return
		}
		size := 2
		if mode == empty {
			size = 0
		}
		s := reflect.MakeSlice(v.Type(), size, size)
		for i := range size {
			fill(s.Index(i), mode, n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		if mode == filled {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, mode, n)
			fill(e, mode, n)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2024, 3, 1, 12, 0, *n, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), mode, n)
			}
		}
	}
}

// filledValue returns a T with every field set as mode says.
func filledValue[T any](mode fillMode) T {
	var v T
	n := 0
	fill(reflect.ValueOf(&v).Elem(), mode, &n)
	return v
}

// wireCase is one engine result and its conversion to the API's answer.
type wireCase struct {
	name    string
	engine  any
	convert func() any
}

// wireCases returns each answer the API converts, from the engine result
// built by build.
func wireCases(mode fillMode) []wireCase {
	ingest := filledValue[memory.IngestResult](mode)
	facts := filledValue[memory.AddFactsResult](mode)
	view := filledValue[memory.FactView](mode)
	search := filledValue[memory.SearchResult](mode)
	item := filledValue[memory.ItemResult](mode)
	job := filledValue[jobs.Job](mode)
	strength := filledValue[decay.Strength](mode)
	sweep := filledValue[decay.SweepStats](mode)
	return []wireCase{
		{"ingest", ingest, func() any { return wireIngestResult(ingest) }},
		{"add_facts", facts, func() any { return wireAddFactsResult(facts) }},
		{"fact_view", view, func() any { return wireFactView(view) }},
		{"search", search, func() any { return wireSearchResult(search) }},
		{"item_result", item, func() any { return wireItemResult(item) }},
		{"job", job, func() any { return wireJob(job) }},
		{"strength", strength, func() any { return wireStrength(strength) }},
		{"sweep", sweep, func() any { return wireSweepStats(sweep) }},
	}
}

// TestWireConversion checks that each answer converted into api/wire
// encodes to exactly the JSON its engine result encoded to, when the server
// sent engine results as they were: the same members, in the same order,
// null and [] alike. Every field of the engine result is set (filled) or
// every collection is empty (empty) or nothing is set (zero), so a field
// the conversion forgets, or one added to the engine and not to the wire,
// fails here.
func TestWireConversion(t *testing.T) {
	modes := []struct {
		name  string
		cases []wireCase
	}{
		{"filled", wireCases(filled)},
		{"empty", wireCases(empty)},
		{"zero", []wireCase{
			{"ingest", memory.IngestResult{}, func() any { return wireIngestResult(memory.IngestResult{}) }},
			{"search", memory.SearchResult{}, func() any { return wireSearchResult(memory.SearchResult{}) }},
			{"job", jobs.Job{}, func() any { return wireJob(jobs.Job{}) }},
			{"strength", decay.Strength{}, func() any { return wireStrength(decay.Strength{}) }},
			{"item_result", memory.ItemResult{}, func() any { return wireItemResult(memory.ItemResult{}) }},
		}},
	}
	for _, m := range modes {
		for _, tc := range m.cases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				want, err := json.Marshal(tc.engine)
				if err != nil {
					t.Fatal(err)
				}
				wired := tc.convert()
				got, err := json.Marshal(wired)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%T encodes unlike the engine's %T:\n got %s\nwant %s", wired, tc.engine, got, want)
				}
				// The server encodes with goccy/go-json: the same bytes.
				if fast, err := gojson.Marshal(wired); err != nil || !bytes.Equal(fast, got) {
					t.Errorf("goccy/go-json encodes %T otherwise (%v):\n%s\n%s", wired, err, fast, got)
				}
			})
		}
	}
}

// TestWireGolden pins the JSON of the API's answers: each filled answer
// must encode as its golden file in testdata/wire says (rewrite them with
// go test ./api -run TestWireGolden -update-wire, and review the diff: a
// change there is a change of the REST API).
func TestWireGolden(t *testing.T) {
	for _, tc := range wireCases(filled) {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.MarshalIndent(tc.convert(), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "wire", tc.name+".json")
			if *updateWire {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (create it with -update-wire)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the %s answer changed; if the API is meant to change, rerun with -update-wire:\n got %s\nwant %s", tc.name, got, want)
			}
		})
	}
}
