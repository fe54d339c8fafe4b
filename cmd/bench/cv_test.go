package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/bench/crossval"
)

func TestCVFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--k", "0"},
		{"--concurrency", "0"},
		{"--limit", "-1"},
		{"--grid", "colour=1"},
	} {
		err := run(context.Background(), append([]string{"cv"}, args...), io.Discard, io.Discard)
		if !errors.Is(err, kgmem.ErrInvalid) {
			t.Errorf("bench cv %v = %v, want ErrInvalid", args, err)
		}
	}
	err := run(context.Background(), []string{"cv", "--locomo", t.TempDir()}, io.Discard, io.Discard)
	if err == nil {
		t.Error("bench cv with an empty LoCoMo directory succeeded")
	}
}

// TestCV runs the joint cross-validation on LoCoMo and the first questions
// of LongMemEval with a two-point grid ($KGMEM_LOCOMO_DATA and
// $KGMEM_LONGMEMEVAL_DATA name the data; without them it skips).
func TestCV(t *testing.T) {
	locomoData, lmeData := os.Getenv("KGMEM_LOCOMO_DATA"), os.Getenv("KGMEM_LONGMEMEVAL_DATA")
	if locomoData == "" || lmeData == "" {
		t.Skip("set KGMEM_LOCOMO_DATA and KGMEM_LONGMEMEVAL_DATA to the benchmark data to run it")
	}
	jsonOut := filepath.Join(t.TempDir(), "cv.json")
	var out, errOut bytes.Buffer
	args := []string{"cv", "--locomo", locomoData, "--longmemeval", lmeData, "--limit", "12", "--grid", "thread_weight=1,-1", "--json", jsonOut}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %s)", err, errOut.String())
	}
	buf, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var res crossval.Result
	if err := json.Unmarshal(buf, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) != 5 || len(res.LeaveOneOut) != 2 {
		t.Fatalf("folds %d, leave-one-out %d; want 5 and 2", len(res.Folds), len(res.LeaveOneOut))
	}
	for _, name := range []string{"LoCoMo", "LongMemEval"} {
		if r := res.Pooled[name]; r <= 0 || r > 1 {
			t.Errorf("pooled %s recall = %v, want within (0, 1]", name, r)
		}
	}
	// LoCoMo alone is the thread retriever's case (it adds about ten points).
	if res.Default["LoCoMo"] <= 0.7 {
		t.Errorf("LoCoMo recall@10 at the defaults = %v, want above 0.7", res.Default["LoCoMo"])
	}
}
