package main

import (
	"bytes"
	"context"
	"fmt"

	kgclient "github.com/kgmem/kgmem/client"

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
	if f := fams["process_cpu_seconds_total"]; f != nil && len(f.GetMetric()) > 0 && f.GetMetric()[0].GetCounter() != nil {
		p.CPUSeconds = f.GetMetric()[0].GetCounter().GetValue()
	}
	return p, nil
}
