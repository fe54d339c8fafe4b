package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/testenv"
)

func TestParseKs(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"5,10", []int{5, 10}, false},
		{" 1, 5 ,20", []int{1, 5, 20}, false},
		{"10", []int{10}, false},
		{"5,,10", nil, true},
		{"five", nil, true},
		{"0", nil, true},
		{"5,5", nil, true},
	}
	for _, tt := range tests {
		got, err := parseKs(tt.in)
		if tt.wantErr {
			if !errors.Is(err, kgmem.ErrInvalid) {
				t.Errorf("parseKs(%q) error = %v, want ErrInvalid", tt.in, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("parseKs(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"nope"},
		{"locomo", "--k", "x"},
		{"locomo", "--scope", "galaxy", "--baseline"},
		{"locomo", "extra-arg"},
		{"locomo", "--url", "localhost:8080"},
	} {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut); !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("run(%q) = %v, want ErrInvalid", args, err)
		}
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"locomo", "--data", t.TempDir(), "--baseline"}, &out, &errOut); !errors.Is(err, kgmem.ErrNotFound) {
		t.Errorf("run with an empty data dir = %v, want ErrNotFound", err)
	}
}

func TestBaselineMode(t *testing.T) {
	data := testenv.LoCoMoData(t)
	jsonOut := filepath.Join(t.TempDir(), "out.json")
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"locomo", "--baseline", "--data", data, "--k", "5,10", "--json", jsonOut}, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %s)", err, errOut.String())
	}
	for _, s := range []string{"overall", "759", "51.6", "58.7", "README bm25 anchor", "51.3", "59.1"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	raw, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Baseline struct {
			K    []int `json:"k"`
			Rows []struct {
				Category  int       `json:"category"`
				Questions int       `json:"questions"`
				Recall    []float64 `json:"recall"`
			} `json:"rows"`
		} `json:"baseline_bm25"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	if !slices.Equal(got.Baseline.K, []int{5, 10}) || len(got.Baseline.Rows) != 5 || got.Baseline.Rows[4].Questions != 759 {
		t.Errorf("json = %s", raw)
	}
}

func TestProgressBars(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBars(&buf, true)
	p.update("ingest", 5, 10)
	p.update("ingest", 3, 10) // out of order: ignored
	p.update("ingest", 10, 10)
	p.finish()
	if !strings.Contains(buf.String(), "ingest") || !strings.Contains(buf.String(), "10/10") || p.done["ingest"] != 10 {
		t.Errorf("progress output %q, done %v", buf.String(), p.done)
	}
	var quiet bytes.Buffer
	q := newProgressBars(&quiet, false)
	q.update("search", 1, 2)
	q.finish()
	if quiet.Len() != 0 {
		t.Errorf("disabled bars wrote %q", quiet.String())
	}
}
