package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	kgclient "github.com/kgmem/kgmem/client"
)

// Config is one load run.
type Config struct {
	// URL is the server; empty starts one in-process on loopback. Several
	// servers of one deployment (replicas on one Neo4j + Milvus), separated
	// by commas, share the clients round-robin; the run's seeding, purge
	// and resource figures go through the first.
	URL string
	// Key is sent as a Bearer token (the admin key: the run purges).
	Key string
	// Clients run concurrently for Duration.
	Clients  int
	Duration time.Duration
	// IngestShare of the requests ingest; the rest search.
	IngestShare float64
	// Namespaces the clients spread over.
	Namespaces int
	// Settle bounds the wait for the server to return to its baseline
	// (0: do not check; the report says so).
	Settle time.Duration
	// Seed makes the generated messages and queries reproducible.
	Seed int64
	// GoroutineSlack and HeapSlack are how far above the baseline the server
	// may stay after the run (defaults 5 goroutines; 25% + 8 MiB of heap).
	GoroutineSlack int
	HeapSlack      float64
}

func (c *Config) validate() error {
	if c.Clients < 1 || c.Duration <= 0 || c.Namespaces < 1 || c.IngestShare < 0 || c.IngestShare > 1 || c.Settle < 0 {
		return fmt.Errorf("-clients and -namespaces must be >= 1, -duration > 0, -settle >= 0, -ingest within 0..1")
	}
	for _, u := range strings.Split(c.URL, ",") {
		if c.URL != "" && strings.TrimSpace(u) == "" {
			return fmt.Errorf("-url %q: an empty server in the list", c.URL)
		}
	}
	if c.GoroutineSlack == 0 {
		c.GoroutineSlack = 5
	}
	if c.HeapSlack == 0 {
		c.HeapSlack = 8 << 20
	}
	return nil
}

// OpStats are one operation's figures.
type OpStats struct {
	Requests int            `json:"requests"`
	PerSec   float64        `json:"per_second"`
	P50Ms    float64        `json:"p50_ms"`
	P99Ms    float64        `json:"p99_ms"`
	MaxMs    float64        `json:"max_ms"`
	Statuses map[string]int `json:"statuses"`
	// Failed counts transport errors (no HTTP answer).
	Failed int `json:"failed"`
}

// Report is what a run measured.
type Report struct {
	URL        string             `json:"url"`
	Clients    int                `json:"clients"`
	Duration   string             `json:"duration"`
	Ops        map[string]OpStats `json:"ops"`
	TotalPerS  float64            `json:"total_per_second"`
	Errors5xx  int                `json:"errors_5xx"`
	Errors4xx  int                `json:"errors_4xx"`
	Failed     int                `json:"transport_errors"`
	Baseline   Process            `json:"baseline"`
	Peak       Process            `json:"peak"`
	After      Process            `json:"after"`
	Settled    bool               `json:"settled"`
	SettleTime string             `json:"settle_time"`
	Purged     int                `json:"namespaces_purged"`
	// CPUMsPerRequest is the server process's CPU time during the run over
	// the requests it answered (0 when its metrics have no CPU counter).
	// In-process (no -url) the process also runs the clients.
	CPUMsPerRequest float64 `json:"cpu_ms_per_request"`
	// KiBAllocatedPerRequest is what the server process allocated on its
	// heap during the run over the requests it answered (0 when its metrics
	// do not say). In-process, the clients' allocations count too.
	KiBAllocatedPerRequest float64 `json:"kib_allocated_per_request"`
	// Backends are the graph store and vector index calls the server made
	// during the run, per request it answered, costliest backend first
	// (empty when its metrics do not say).
	Backends []BackendLoad `json:"backends,omitempty"`
}

// BackendLoad is what one backend answered during a run, per request.
type BackendLoad struct {
	Backend string `json:"backend"`
	// CallsPerRequest is the calls the server made to it per request.
	CallsPerRequest float64 `json:"calls_per_request"`
	// MsPerRequest is the time those calls took, summed (calls a request
	// makes at once each count): the backend's share of the latency.
	MsPerRequest float64 `json:"ms_per_request"`
	// Ops break it down by operation, costliest first.
	Ops []OpLoad `json:"ops"`
}

// OpLoad is one operation of a backend during a run.
type OpLoad struct {
	Op              string  `json:"op"`
	CallsPerRequest float64 `json:"calls_per_request"`
	MsPerCall       float64 `json:"ms_per_call"`
}

// backendLoads are the calls made between two readings of the server's
// metrics, over requests.
func backendLoads(before, after map[string]map[string]Calls, requests float64) []BackendLoad {
	var loads []BackendLoad
	for backend, ops := range after {
		l := BackendLoad{Backend: backend}
		for op, c := range ops {
			n, secs := c.Count-before[backend][op].Count, c.Seconds-before[backend][op].Seconds
			if n <= 0 {
				continue
			}
			l.CallsPerRequest += n / requests
			l.MsPerRequest += secs * 1000 / requests
			l.Ops = append(l.Ops, OpLoad{Op: op, CallsPerRequest: n / requests, MsPerCall: secs * 1000 / n})
		}
		if len(l.Ops) == 0 {
			continue
		}
		slices.SortFunc(l.Ops, func(a, b OpLoad) int {
			return cmp.Or(cmp.Compare(b.CallsPerRequest*b.MsPerCall, a.CallsPerRequest*a.MsPerCall), cmp.Compare(a.Op, b.Op))
		})
		loads = append(loads, l)
	}
	slices.SortFunc(loads, func(a, b BackendLoad) int {
		return cmp.Or(cmp.Compare(b.MsPerRequest, a.MsPerRequest), cmp.Compare(a.Backend, b.Backend))
	})
	return loads
}

// sample is one request's outcome.
type sample struct {
	op      string
	status  int
	latency time.Duration
	err     bool
}

// vocabulary of the generated messages and queries.
var vocabulary = strings.Fields(`alice bob carol dave erin frank grace heidi ivan judy
team project meeting budget launch review design research garden painting music hiking
adoption support group sunrise lake kids school travel paris tokyo recipe dinner coffee
deadline promotion mentor contract invoice server database release bug feature customer`)

func sentence(r *rand.Rand, words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return strings.Join(w, " ")
}

// Run executes one load run and returns its report; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	base, gc := cfg.URL, func() {}
	if base == "" {
		dir, err := os.MkdirTemp("", "kgmem-load-")
		if err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		defer os.RemoveAll(dir)
		srv, err := startInProcess(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := srv.stop(); err != nil {
				fmt.Fprintln(log, "stopping the in-process server:", err)
			}
		}()
		// In-process, a forced collection shows the live heap at once; a
		// remote server's heap settles at its next GC (at most 2 min idle).
		base, gc = srv.url, func() { runtime.GC(); debug.FreeOSMemory() } // two cycles: sync.Pool victims go too
	}
	transport := &http.Transport{MaxIdleConns: cfg.Clients * 2, MaxIdleConnsPerHost: cfg.Clients * 2, IdleConnTimeout: 30 * time.Second}
	defer transport.CloseIdleConnections()
	var servers []*kgclient.Client
	for _, u := range strings.Split(base, ",") {
		// Every answer counts as it is: no retries.
		c, err := kgclient.New(strings.TrimRight(strings.TrimSpace(u), "/"), kgclient.WithHTTPClient(&http.Client{Transport: transport, Timeout: 60 * time.Second}),
			kgclient.WithAPIKey(cfg.Key), kgclient.WithRetries(0, 0))
		if err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
		servers = append(servers, c)
	}
	client := servers[0]

	run := fmt.Sprintf("load/r%d", time.Now().UnixNano())
	nss := make([]string, cfg.Namespaces)
	for i := range nss {
		nss[i] = fmt.Sprintf("%s/n%d", run, i)
	}
	// Every namespace starts with a few messages, so searches find something.
	seedRand := rand.New(rand.NewPCG(uint64(cfg.Seed), 0))
	for _, ns := range nss {
		msgs := []wire.Message{}
		for j := range 5 {
			msgs = append(msgs, wire.Message{ID: fmt.Sprintf("seed-%d", j), Name: "seed", Content: sentence(seedRand, 12), Timestamp: "2024-01-01T00:00:00Z"})
		}
		if _, _, err := client.AddMemories(ctx, wire.MemoriesRequest{Namespace: kgmem.Namespace(ns), ThreadID: "seed", Messages: msgs}); err != nil {
			return nil, fmt.Errorf("seed %s: %w", ns, err)
		}
	}
	transport.CloseIdleConnections()
	baseline, err := settle(ctx, client, transport, gc, nil, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	fmt.Fprintf(log, "load: %d clients for %s against %s (baseline %d goroutines, heap %.1f MiB)\n", cfg.Clients, cfg.Duration, base, baseline.Goroutines, baseline.HeapInuse/(1<<20))

	rep := &Report{URL: base, Clients: cfg.Clients, Duration: cfg.Duration.String(), Ops: map[string]OpStats{}, Baseline: baseline, Peak: baseline}
	// Peak resources, sampled each second during the run.
	samplerCtx, stopSampler := context.WithCancel(ctx)
	samplerDone := make(chan struct{})
	go func() {
		defer close(samplerDone)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-samplerCtx.Done():
				return
			case <-tick.C:
			}
			if p, err := scrape(samplerCtx, client); err == nil {
				rep.Peak.Goroutines = max(rep.Peak.Goroutines, p.Goroutines)
				rep.Peak.HeapInuse = max(rep.Peak.HeapInuse, p.HeapInuse)
				rep.Peak.RSS = max(rep.Peak.RSS, p.RSS)
			}
		}
	}()

	deadline := time.Now().Add(cfg.Duration)
	results := make([][]sample, cfg.Clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(c+1)))
			client := servers[c%len(servers)]
			for n := 0; time.Now().Before(deadline) && ctx.Err() == nil; n++ {
				ns := nss[r.IntN(len(nss))]
				// In-flight requests finish after the deadline: they are not
				// cut, so a cut is never miscounted as an error.
				rctx := context.WithoutCancel(ctx)
				var op string
				var st int
				var err error
				t0 := time.Now()
				if r.Float64() < cfg.IngestShare {
					op = "ingest"
					msgs := []wire.Message{}
					for j := range 1 + r.IntN(3) {
						msgs = append(msgs, wire.Message{ID: fmt.Sprintf("c%d-%d-%d", c, n, j), Role: "user", Name: vocabulary[r.IntN(10)],
							Content: sentence(r, 8+r.IntN(20)), Timestamp: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute).Format(time.RFC3339)})
					}
					t0 = time.Now()
					var created bool
					_, created, err = client.AddMemories(rctx, wire.MemoriesRequest{Namespace: kgmem.Namespace(ns), ThreadID: fmt.Sprintf("client-%d", c), Messages: msgs})
					st = answered(map[bool]int{true: http.StatusCreated, false: http.StatusOK}[created], err)
				} else {
					op = "search"
					q := wire.SearchRequest{Namespace: kgmem.Namespace(ns), Query: sentence(r, 2+r.IntN(3)), Limit: 10}
					t0 = time.Now()
					_, err = client.Search(rctx, q)
					st = answered(http.StatusOK, err)
				}
				results[c] = append(results[c], sample{op: op, status: st, latency: time.Since(t0), err: st == 0})
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	stopSampler()
	<-samplerDone
	rep.summarise(results, elapsed)
	// CPU per request is steadier than requests/s on a shared machine: a
	// busy neighbour slows both, but the work per request stays the same.
	// So are the bytes a request allocates, which the collector's share of
	// the CPU follows.
	if end, err := scrape(ctx, client); err == nil && rep.TotalPerS > 0 {
		requests := rep.TotalPerS * elapsed.Seconds()
		if baseline.CPUSeconds > 0 {
			rep.CPUMsPerRequest = (end.CPUSeconds - baseline.CPUSeconds) * 1000 / requests
		}
		if baseline.AllocatedBytes > 0 {
			rep.KiBAllocatedPerRequest = (end.AllocatedBytes - baseline.AllocatedBytes) / 1024 / requests
		}
		rep.Backends = backendLoads(baseline.Calls, end.Calls, requests)
	}

	// Clean up what the run wrote, then wait for the server to settle.
	for _, ns := range nss {
		if _, err := client.PurgeNamespace(ctx, kgmem.Namespace(ns)); err != nil {
			return nil, fmt.Errorf("purge %s: %w", ns, err)
		}
		rep.Purged++
	}
	transport.CloseIdleConnections()
	if cfg.Settle == 0 {
		rep.Settled, rep.SettleTime = true, "not checked"
		return rep, nil
	}
	t0 := time.Now()
	after, err := settle(ctx, client, transport, gc, &baseline, cfg.GoroutineSlack, cfg.HeapSlack, cfg.Settle)
	rep.After, rep.SettleTime = after, time.Since(t0).Round(time.Millisecond).String()
	rep.Settled = err == nil
	if err != nil && !errors.Is(err, errNotSettled) {
		return nil, err
	}
	return rep, nil
}

// errNotSettled: the server stayed above its baseline.
var errNotSettled = errors.New("the server did not return to its baseline")

// settle polls the server's resources (forcing a collection first when
// in-process) until they are within slack of want, or until the deadline;
// with want nil it takes one reading.
func settle(ctx context.Context, client *kgclient.Client, transport *http.Transport, gc func(), want *Process, goroutineSlack int, heapSlack float64, within ...time.Duration) (Process, error) {
	deadline := time.Now()
	if len(within) > 0 {
		deadline = deadline.Add(within[0])
	}
	for {
		gc()
		p, err := scrape(ctx, client)
		transport.CloseIdleConnections()
		if err != nil {
			return p, err
		}
		if want == nil || p.Goroutines <= want.Goroutines+goroutineSlack && p.HeapInuse <= want.HeapInuse*1.25+heapSlack {
			return p, nil
		}
		if time.Now().After(deadline) {
			return p, fmt.Errorf("%w: %d goroutines (baseline %d), heap %.1f MiB (baseline %.1f MiB)", errNotSettled, p.Goroutines, want.Goroutines, p.HeapInuse/(1<<20), want.HeapInuse/(1<<20))
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// answered is the status of a client call: ok when it succeeded, the
// server's status when it answered outside 2xx, 0 for a transport failure.
func answered(ok int, err error) int {
	var e *kgclient.Error
	switch {
	case err == nil:
		return ok
	case errors.As(err, &e):
		return e.Status
	}
	return 0
}

func (rep *Report) summarise(results [][]sample, elapsed time.Duration) {
	lat := map[string][]time.Duration{}
	total := 0
	for _, rs := range results {
		for _, s := range rs {
			st := rep.Ops[s.op]
			if st.Statuses == nil {
				st.Statuses = map[string]int{}
			}
			st.Requests++
			total++
			switch {
			case s.err:
				st.Failed++
				rep.Failed++
			default:
				st.Statuses[fmt.Sprint(s.status)]++
				if s.status >= 500 {
					rep.Errors5xx++
				} else if s.status >= 400 {
					rep.Errors4xx++
				}
			}
			rep.Ops[s.op] = st
			lat[s.op] = append(lat[s.op], s.latency)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for op, ls := range lat {
		slices.Sort(ls)
		st := rep.Ops[op]
		st.PerSec = float64(len(ls)) / elapsed.Seconds()
		st.P50Ms, st.P99Ms, st.MaxMs = ms(ls[len(ls)/2]), ms(ls[min(len(ls)-1, len(ls)*99/100)]), ms(ls[len(ls)-1])
		rep.Ops[op] = st
	}
	rep.TotalPerS = float64(total) / elapsed.Seconds()
}

func (rep *Report) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "op\trequests\tper s\tp50 ms\tp99 ms\tmax ms\tstatuses\ttransport errors\n")
	for _, op := range []string{"ingest", "search"} {
		st, ok := rep.Ops[op]
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%v\t%d\n", op, st.Requests, st.PerSec, st.P50Ms, st.P99Ms, st.MaxMs, st.Statuses, st.Failed)
	}
	_ = tw.Flush()
	mib := func(b float64) float64 { return b / (1 << 20) }
	fmt.Fprintf(w, "total %.1f requests/s over %s with %d clients; 5xx %d, 4xx %d, transport errors %d\n", rep.TotalPerS, rep.Duration, rep.Clients, rep.Errors5xx, rep.Errors4xx, rep.Failed)
	if rep.CPUMsPerRequest > 0 {
		fmt.Fprintf(w, "server CPU %.2f ms per request\n", rep.CPUMsPerRequest)
	}
	if rep.KiBAllocatedPerRequest > 0 {
		fmt.Fprintf(w, "server heap allocations %.1f KiB per request\n", rep.KiBAllocatedPerRequest)
	}
	for _, b := range rep.Backends {
		var ops []string
		for _, o := range b.Ops[:min(len(b.Ops), 6)] {
			ops = append(ops, fmt.Sprintf("%s %.2f × %.1f ms", o.Op, o.CallsPerRequest, o.MsPerCall))
		}
		fmt.Fprintf(w, "%s: %.2f calls taking %.1f ms per request (%s)\n", b.Backend, b.CallsPerRequest, b.MsPerRequest, strings.Join(ops, ", "))
	}
	fmt.Fprintf(w, "server goroutines %d -> peak %d -> %d; heap in use %.1f -> peak %.1f -> %.1f MiB; RSS %.1f -> peak %.1f -> %.1f MiB\n",
		rep.Baseline.Goroutines, rep.Peak.Goroutines, rep.After.Goroutines,
		mib(rep.Baseline.HeapInuse), mib(rep.Peak.HeapInuse), mib(rep.After.HeapInuse), mib(rep.Baseline.RSS), mib(rep.Peak.RSS), mib(rep.After.RSS))
	fmt.Fprintf(w, "purged %d namespaces; back to baseline: %v (after %s)\n", rep.Purged, rep.Settled, rep.SettleTime)
}

// verdict fails the run on any 5xx, transport error, or a server that did
// not settle.
func (rep *Report) verdict() error {
	var errs []error
	if rep.Errors5xx > 0 || rep.Failed > 0 {
		errs = append(errs, fmt.Errorf("%d responses were 5xx and %d requests got no answer", rep.Errors5xx, rep.Failed))
	}
	if !rep.Settled {
		errs = append(errs, errNotSettled)
	}
	return errors.Join(errs...)
}
