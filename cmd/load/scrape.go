package main

import (
	"bytes"
	"context"
	"fmt"

	kgclient "github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/instrument"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Process is the server's own view of its resources, read from /metrics.
type Process struct {
	Goroutines int     `json:"goroutines"`
	HeapInuse  float64 `json:"heap_inuse_bytes"`
	RSS        float64 `json:"rss_bytes"`
	// CPUSeconds is the CPU time the process has used since it started
	// (process_cpu_seconds_total; 0 off Linux).
	CPUSeconds float64 `json:"cpu_seconds"`
	// AllocatedBytes is what the process has allocated on its heap since it
	// started (go_memstats_alloc_bytes_total): the collector's work follows it.
	AllocatedBytes float64 `json:"allocated_bytes"`
	// Calls are the graph store and vector index calls the server has made
	// since it started, by backend and operation
	// (kgmem_backend_call_duration_seconds; empty for a server without it).
	Calls map[string]map[string]Calls `json:"calls,omitempty"`
}

// Calls are a number of backend calls and the time they took together.
type Calls struct {
	Count   float64 `json:"count"`
	Seconds float64 `json:"seconds"`
}

// scrape reads the Go and process collector gauges from the server's /metrics.
func scrape(ctx context.Context, client *kgclient.Client) (Process, error) {
	raw, err := client.Metrics(ctx)
	if err != nil {
		return Process{}, fmt.Errorf("read metrics (the admin key is needed when keys are on): %w", err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return Process{}, fmt.Errorf("parse metrics: %w", err)
	}
	gauge := func(name string) (float64, error) {
		f := fams[name]
		if f == nil || len(f.GetMetric()) == 0 || f.GetMetric()[0].GetGauge() == nil {
			return 0, fmt.Errorf("the server does not export %s (Go and process collectors)", name)
		}
		return f.GetMetric()[0].GetGauge().GetValue(), nil
	}
	var p Process
	g, err := gauge("go_goroutines")
	if err != nil {
		return p, err
	}
	p.Goroutines = int(g)
	if p.HeapInuse, err = gauge("go_memstats_heap_inuse_bytes"); err != nil {
		return p, err
	}
	p.RSS, _ = gauge("process_resident_memory_bytes") // absent off Linux
	counter := func(name string) float64 {
		if f := fams[name]; f != nil && len(f.GetMetric()) > 0 && f.GetMetric()[0].GetCounter() != nil {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
		return 0
	}
	p.CPUSeconds = counter("process_cpu_seconds_total")
	p.AllocatedBytes = counter("go_memstats_alloc_bytes_total")
	p.Calls = backendCalls(fams[instrument.CallDuration])
	return p, nil
}

// backendCalls reads the backend call histogram by backend and operation.
func backendCalls(f *dto.MetricFamily) map[string]map[string]Calls {
	calls := map[string]map[string]Calls{}
	for _, m := range f.GetMetric() {
		var backend, op string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "backend":
				backend = l.GetValue()
			case "op":
				op = l.GetValue()
			}
		}
		if calls[backend] == nil {
			calls[backend] = map[string]Calls{}
		}
		calls[backend][op] = Calls{Count: float64(m.GetHistogram().GetSampleCount()), Seconds: m.GetHistogram().GetSampleSum()}
	}
	return calls
}
