package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// Comparison runs two server builds through the same load, alternating
// which goes first each round, so that a shared, noisy machine affects both
// alike and only same-run ratios are read.
type Comparison struct {
	// Baseline and Candidate are git revisions; an empty Candidate is the
	// working tree as it is (uncommitted changes included).
	Baseline, Candidate string
	// Rounds is how many times each build is loaded.
	Rounds int
	// Load is the run each build gets; its URL is set per run.
	Load Config
	// Backends is what every server stores its data in (embedded when zero).
	Backends Backends
}

// CompareRun is one build's run in a round.
type CompareRun struct {
	Round  int     `json:"round"`
	Build  string  `json:"build"`
	Report *Report `json:"report"`
}

// CompareReport holds every run and the per-round ratios candidate/baseline.
type CompareReport struct {
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	// Backends is the pair every server ran on.
	Backends string       `json:"backends"`
	Runs     []CompareRun `json:"runs"`
	// ThroughputRatios and SearchP99Ratios are candidate/baseline per round.
	ThroughputRatios []float64 `json:"throughput_ratios"`
	SearchP99Ratios  []float64 `json:"search_p99_ratios"`
	// CPUPerRequestRatios are the servers' CPU per request, candidate over
	// baseline, per round (lower is cheaper).
	CPUPerRequestRatios []float64 `json:"cpu_per_request_ratios"`
	// AllocationRatios are the servers' heap bytes allocated per request,
	// candidate over baseline, per round.
	AllocationRatios []float64 `json:"allocation_ratios"`
}

// RunComparison builds both servers and loads them; progress goes to log.
func RunComparison(ctx context.Context, c Comparison, log io.Writer) (*CompareReport, error) {
	if c.Rounds < 1 || c.Baseline == "" {
		return nil, errors.New("-compare needs a baseline revision and -rounds >= 1")
	}
	if err := c.Backends.validate(); err != nil {
		return nil, err
	}
	repo, err := gitOutput(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("-compare runs inside the kgmem repository: %w", err)
	}
	dir, err := os.MkdirTemp("", "kgmem-compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	candidateName := c.Candidate
	if candidateName == "" {
		candidateName = "working tree"
	}
	builds := []struct{ name, rev, bin string }{
		{"baseline " + c.Baseline, c.Baseline, filepath.Join(dir, "kgmem-baseline")},
		{"candidate " + candidateName, c.Candidate, filepath.Join(dir, "kgmem-candidate")},
	}
	for _, b := range builds {
		fmt.Fprintf(log, "compare: building the %s\n", b.name)
		if err := buildServer(ctx, repo, b.rev, b.bin); err != nil {
			return nil, fmt.Errorf("build the %s: %w", b.name, err)
		}
	}
	rep := &CompareReport{Baseline: c.Baseline, Candidate: candidateName, Backends: cmp.Or(c.Backends.Pair, BackendsEmbedded)}
	for round := range c.Rounds {
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		byBuild := make([]*Report, 2)
		for _, i := range order {
			b := builds[i]
			fmt.Fprintf(log, "compare: round %d, %s\n", round+1, b.name)
			r, err := loadBuild(ctx, b.bin, filepath.Join(dir, fmt.Sprintf("data-%d-%d", round, i)), c.Backends, c.Load, log)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round+1, b.name, err)
			}
			byBuild[i] = r
		}
		for i, r := range byBuild {
			rep.Runs = append(rep.Runs, CompareRun{Round: round + 1, Build: builds[i].name, Report: r})
		}
		rep.ThroughputRatios = append(rep.ThroughputRatios, ratio(byBuild[1].TotalPerS, byBuild[0].TotalPerS))
		rep.SearchP99Ratios = append(rep.SearchP99Ratios, ratio(byBuild[1].Ops["search"].P99Ms, byBuild[0].Ops["search"].P99Ms))
		rep.CPUPerRequestRatios = append(rep.CPUPerRequestRatios, ratio(byBuild[1].CPUMsPerRequest, byBuild[0].CPUMsPerRequest))
		rep.AllocationRatios = append(rep.AllocationRatios, ratio(byBuild[1].KiBAllocatedPerRequest, byBuild[0].KiBAllocatedPerRequest))
	}
	return rep, nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// buildServer compiles cmd/server at rev (empty: the working tree) into bin.
// A revision is checked out into a temporary worktree; -trimpath lets both
// builds share the build cache.
func buildServer(ctx context.Context, repo, rev, bin string) error {
	src := repo
	if rev != "" {
		src = bin + ".src"
		if _, err := gitOutput(ctx, repo, "worktree", "add", "--detach", src, rev); err != nil {
			return err
		}
		defer func() { _, _ = gitOutput(context.Background(), repo, "worktree", "remove", "--force", src) }()
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/server")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// loadBuild starts bin on a free loopback port over a fresh data directory
// (and on backends, each run starting empty), runs the load against it and
// stops it.
func loadBuild(ctx context.Context, bin, dataDir string, backends Backends, cfg Config, log io.Writer) (rep *Report, err error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	logFile, err := os.Create(dataDir + ".log")
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	extra, cleanup, err := backends.serverArgs()
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := cleanup(context.WithoutCancel(ctx)); cerr != nil && err == nil {
			err = cerr
		}
	}()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--data-dir", dataDir, "--log-level", "warn"}, extra...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The server must not inherit an admin key or backends from the caller's
	// environment: both builds run alike, open on loopback, on the backends
	// given.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "KGMEM_") })
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	url := "http://" + addr
	if err := waitReady(ctx, url, exited, time.Minute); err != nil {
		return nil, fmt.Errorf("%w (server log %s.log)", err, dataDir)
	}
	cfg.URL, cfg.Key = url, ""
	return Run(ctx, cfg, log)
}

// freeAddr returns a loopback address with a port free at the time of the call.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitReady polls /readyz until it answers 200, the server exits or the deadline passes.
func waitReady(ctx context.Context, url string, exited <-chan error, within time.Duration) error {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server was not ready within %s", within)
		}
		select {
		case err := <-exited:
			return fmt.Errorf("the server exited before it was ready: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// print writes every run and the ratios, with their median and range.
func (r *CompareReport) print(w io.Writer) {
	fmt.Fprintf(w, "backends: %s\n", r.Backends)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "round\tbuild\treq/s\tserver CPU ms/req\tserver KiB allocated/req\tsearch p50 ms\tsearch p99 ms\tingest p99 ms\t5xx\tbackend calls/req\n")
	for _, run := range r.Runs {
		s, in := run.Report.Ops["search"], run.Report.Ops["ingest"]
		var calls []string
		for _, b := range run.Report.Backends {
			calls = append(calls, fmt.Sprintf("%s %.2f", b.Backend, b.CallsPerRequest))
		}
		fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.2f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%s\n", run.Round, run.Build, run.Report.TotalPerS, run.Report.CPUMsPerRequest, run.Report.KiBAllocatedPerRequest, s.P50Ms, s.P99Ms, in.P99Ms, run.Report.Errors5xx,
			cmp.Or(strings.Join(calls, ", "), "not reported"))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\ncandidate/baseline req/s: median %.2f, range %s (per round %s)\n", median(r.ThroughputRatios), spread(r.ThroughputRatios), list(r.ThroughputRatios))
	fmt.Fprintf(w, "candidate/baseline search p99: median %.2f, range %s (per round %s)\n", median(r.SearchP99Ratios), spread(r.SearchP99Ratios), list(r.SearchP99Ratios))
	fmt.Fprintf(w, "candidate/baseline server CPU per request: median %.2f, range %s (per round %s)\n", median(r.CPUPerRequestRatios), spread(r.CPUPerRequestRatios), list(r.CPUPerRequestRatios))
	fmt.Fprintf(w, "candidate/baseline server heap allocated per request: median %.2f, range %s (per round %s)\n", median(r.AllocationRatios), spread(r.AllocationRatios), list(r.AllocationRatios))
}

// verdict fails the comparison when any run got a 5xx.
func (r *CompareReport) verdict() error {
	for _, run := range r.Runs {
		if run.Report.Errors5xx > 0 {
			return fmt.Errorf("round %d, %s: %d responses were 5xx", run.Round, run.Build, run.Report.Errors5xx)
		}
	}
	return nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func spread(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f–%.2f", slices.Min(xs), slices.Max(xs))
}

func list(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, ", ")
}
