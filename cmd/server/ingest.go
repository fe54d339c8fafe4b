package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/chatlog"
	"github.com/kgmem/kgmem/chatlog/importer"
	"github.com/kgmem/kgmem/internal/cpuprofile"
	"github.com/kgmem/kgmem/memory"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// ingestFlags are the flags of `server ingest` beyond the server's own.
type ingestFlags struct {
	url          string
	apiKey       string
	outage       time.Duration
	format       string
	namespace    string
	thread       string
	concurrency  int
	batch        int
	extract      bool
	rpm, tpm     int
	checkpoint   string
	saveEvery    time.Duration
	errorsPath   string
	dryRun       bool
	progress     string
	maxLineBytes int
	cpuProfile   string
}

// setDefaults fills the flags left at 0 whose default depends on --extract:
// with extraction, small batches and few threads, which pace the LLM calls;
// without, large batches and many threads, which keep the writer busy.
func (f *ingestFlags) setDefaults() {
	batch, concurrency := 500, 16
	if f.extract {
		batch, concurrency = 50, 4
	}
	if f.batch == 0 {
		f.batch = batch
	}
	if f.concurrency == 0 {
		f.concurrency = concurrency
	}
}

// newIngestCommand is `server ingest`.
func newIngestCommand(std streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ingest [flags] [FILE...]",
		Short: "import chat logs (JSONL, OpenAI, ChatGPT export, LoCoMo), resumably; no FILE or -: stdin",
	}
	var f ingestFlags
	fs := cmd.Flags()
	fs.StringVar(&f.url, "url", "", "post to the kgmem server at this URL (default: open the configured backends in-process)")
	fs.DurationVar(&f.outage, "unreachable-for", importer.DefaultOutageAllowance, "with --url, how long a batch is retried while the server cannot be reached (refused or broken connections: a restart); 0 fails it at once")
	fs.StringVar(&f.format, "format", "auto", "input format: auto, jsonl, openai, chatgpt or locomo")
	fs.StringVar(&f.namespace, "namespace", "", "namespace of records that name none (ChatGPT and OpenAI exports; the prefix for LoCoMo)")
	fs.StringVar(&f.thread, "thread", "default", "thread of JSONL records without thread_id")
	fs.IntVar(&f.concurrency, "concurrency", 0, "threads ingested at once, a thread's batches in order (default 4 with --extract, which paces LLM calls; 16 without, which keeps the writer busy)")
	fs.IntVar(&f.batch, "batch", 0, "messages per request (default 50 with --extract, 500 without: fewer, larger writes; in-process without --extract, threads of a namespace share a write up to it)")
	fs.BoolVar(&f.extract, "extract", false, "extract facts with the configured LLM")
	fs.IntVar(&f.rpm, "llm-rpm", 0, "LLM requests per minute (0: unlimited)")
	fs.IntVar(&f.tpm, "llm-tpm", 0, "LLM tokens per minute (0: unlimited)")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint file (default INPUT.kgmem-checkpoint; none for stdin)")
	fs.DurationVar(&f.saveEvery, "checkpoint-every", time.Second, "how often the checkpoint is saved while running")
	fs.StringVar(&f.errorsPath, "errors", "", "file of bad records, one JSON line each (default next to the checkpoint: INPUT.kgmem-errors.jsonl)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "read and validate everything, report what would be ingested, write nothing")
	fs.StringVar(&f.progress, "progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), always or never")
	fs.IntVar(&f.maxLineBytes, "max-line-bytes", 16<<20, "longest JSONL line; longer lines are reported and skipped")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the import to this file (go tool pprof)")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"auto", "jsonl", "openai", "chatgpt", "locomo"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("progress", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	cfg := tableFlags(cmd, cmdIngest)
	cmd.RunE = func(cmd *cobra.Command, inputs []string) error {
		f.apiKey = cfg.APIKey
		if !cmd.Flags().Changed("log-level") && !cfg.given["KGMEM_LOG_LEVEL"] {
			cfg.LogLevel = "warn" // info lines would tear the progress bar
		}
		return ingest(cmd.Context(), cfg, &f, inputs, std.out, std.err)
	}
	return cmd
}

// ingest imports chat logs: `server ingest [flags] FILE...` (no file or "-":
// stdin). With --url it posts to a running server; otherwise it opens the
// configured backends in-process, with the same settings as serve. It
// prints one JSON summary per input on stdout.
func ingest(ctx context.Context, cfg *config, f *ingestFlags, inputs []string, stdout, stderr io.Writer) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	format, err := chatlog.ParseFormat(f.format)
	if err != nil {
		return fmt.Errorf("--format: %w", err)
	}
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	if len(inputs) > 1 && (f.checkpoint != "" || f.errorsPath != "") {
		return errors.New("--checkpoint and --errors name one file; give one input at a time")
	}
	f.setDefaults()
	if f.concurrency < 1 || f.batch < 1 || f.batch > 1000 || f.rpm < 0 || f.tpm < 0 || f.saveEvery <= 0 || f.outage < 0 {
		return errors.New("--concurrency must be >= 1, --batch within 1..1000 (the server's per-request limit), --llm-rpm and --llm-tpm >= 0, --checkpoint-every > 0, --unreachable-for >= 0")
	}
	var ns kgmem.Namespace
	if f.namespace != "" {
		if ns, err = kgmem.ParseNamespace(f.namespace); err != nil {
			return fmt.Errorf("--namespace: %w", err)
		}
	}
	log := cfg.logger()
	defer cfg.startGCHeadroom(log).Stop()
	if f.cpuProfile != "" {
		stop, err := cpuprofile.Start(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer stop()
	}

	var sink importer.Sink
	switch {
	case f.dryRun:
	case f.url != "":
		hs, err := importer.NewHTTPSink(f.url, f.apiKey)
		if err != nil {
			return fmt.Errorf("--url: %w", err)
		}
		hs.SetOutageAllowance(f.outage)
		sink = hs
	default:
		// Nothing searches this process's stores while it imports.
		cfg.bulkImport = true
		// The durable vector outbox, as serve's: every write journals its
		// vector ops before the graph write, so an import killed in
		// between applies them when it runs again.
		b, err := openBackendsWith(ctx, cfg, log, forImport)
		if err != nil {
			return err
		}
		defer b.close(log)
		if f.extract && !b.engine.ExtractionEnabled() {
			return errors.New("--extract needs an LLM: set --llm-base-url and --llm-model (or KGMEM_LLM_BASE_URL and KGMEM_LLM_MODEL)")
		}
		if n, err := settleOutbox(ctx, b.engine); err != nil {
			log.Warn("the vector writes a previous run left could not all be applied yet; they stay queued", "applied", n, "queued", b.engine.OutboxDepth(), "error", err)
		} else if n > 0 {
			log.Warn("applied the vector writes a previous run left", "ops", n)
		}
		stop := b.drainOutbox(ctx)
		defer func() {
			stop()
			// Before b.close: what failed during the import is applied now,
			// or stays queued for the next run or server.
			if n, err := settleOutbox(context.WithoutCancel(ctx), b.engine); err != nil {
				fmt.Fprintf(stderr, "kgmem: %d vector writes could not be applied (%v); they stay queued and the next `server ingest` or `server serve` on this data directory applies them\n", b.engine.OutboxDepth(), err)
			} else if n > 0 {
				log.Info("applied queued vector writes", "ops", n)
			}
		}()
		sink = b.engine
	}

	var failed error
	for _, in := range inputs {
		s, err := ingestOne(ctx, in, *f, format, ns, sink, stderr)
		if s != nil {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if encErr := enc.Encode(struct {
				Input string `json:"input"`
				*importer.Summary
			}{in, s}); encErr != nil {
				return fmt.Errorf("print summary: %w", encErr)
			}
		}
		if err != nil {
			return fmt.Errorf("ingest %s: %w", in, err)
		}
		if s.Failed > 0 {
			failed = errors.Join(failed, fmt.Errorf("ingest %s: %d messages in failed batches (see the errors file; run again to retry)", in, s.Failed))
		}
	}
	return failed
}

// ingestOne imports one input with its own checkpoint and errors file.
func ingestOne(ctx context.Context, in string, f ingestFlags, format chatlog.Format, ns kgmem.Namespace, sink importer.Sink, stderr io.Writer) (*importer.Summary, error) {
	var src io.Reader = os.Stdin
	size := int64(-1)
	ckPath, errPath := f.checkpoint, f.errorsPath
	if in != "-" {
		file, err := os.Open(in)
		if err != nil {
			return nil, fmt.Errorf("open input: %w", err)
		}
		defer file.Close()
		if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		src = file
		if ckPath == "" {
			ckPath = in + ".kgmem-checkpoint"
		}
	}
	if errPath == "" && ckPath != "" {
		errPath = trimExt(ckPath, ".kgmem-checkpoint") + ".kgmem-errors.jsonl"
	}
	ck, err := importer.LoadCheckpoint(ckPath)
	if err != nil {
		return nil, err
	}
	var errOut io.Writer = stderr
	if errPath != "" {
		ef, err := os.Create(errPath)
		if err != nil {
			return nil, fmt.Errorf("create errors file: %w", err)
		}
		defer ef.Close()
		errOut = ef
	}
	counted := &countingReader{r: src}
	r, err := chatlog.Open(counted, chatlog.Options{Format: format, Namespace: ns, ThreadID: f.thread, Name: in, MaxLineBytes: f.maxLineBytes})
	if err != nil {
		return nil, err
	}
	im, err := importer.New(importer.Config{
		Sink: sink, Concurrency: f.concurrency, Batch: f.batch, Extract: f.extract, RPM: f.rpm, TPM: f.tpm,
		Checkpoint: ck, SaveEvery: f.saveEvery, Errors: errOut, DryRun: f.dryRun,
	})
	if err != nil {
		return nil, err
	}
	stop := showProgress(f.progress, stderr, size, counted, im)
	s, err := im.Run(ctx, r)
	stop()
	if errPath != "" && s.Bad+s.Failed == 0 {
		_ = os.Remove(errPath) // an empty errors file would only puzzle
	}
	if err == nil && s.Read == 0 {
		err = nothingRead(s, im.FirstBad(), errPath)
	}
	return &s, err
}

// errNothingRead is the error of an import that found no valid record.
var errNothingRead = errors.New("no message was read")

// nothingRead explains an import that read no valid record: every record
// was bad (with the first one's reason), or the input held none.
func nothingRead(s importer.Summary, firstBad, errPath string) error {
	if s.Bad == 0 {
		return fmt.Errorf("%w: the input holds no records (format %s)", errNothingRead, s.Format)
	}
	where := "listed above"
	if errPath != "" {
		where = "listed in " + errPath
	}
	return fmt.Errorf("%w: all %d records are bad (%s); the first: %s", errNothingRead, s.Bad, where, firstBad)
}

// settleOutboxTimeout bounds settleOutbox.
const settleOutboxTimeout = 2 * time.Minute

// settleOutbox applies the queued vector writes until none is left, the
// vector index does not answer (memory.ErrVectorIndexDown), or
// settleOutboxTimeout passes, and returns how many it applied. A round
// that could not apply some namespaces (one whose lock a killed run still
// holds until its lease lapses, a write that timed out) is tried again,
// after a pause when it applied nothing: a run that took over queued
// writes applies them all before it ends.
func settleOutbox(ctx context.Context, e interface {
	DrainOutbox(context.Context) (int, error)
	OutboxDepth() int
}) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, settleOutboxTimeout)
	defer cancel()
	total := 0
	pause := settleOutboxPause
	for e.OutboxDepth() > 0 {
		n, err := e.DrainOutbox(ctx)
		total += n
		switch {
		case err == nil && n == 0:
			return total, nil // what is left is in flight elsewhere
		case err == nil || n > 0:
			pause = settleOutboxPause
			continue
		case errors.Is(err, memory.ErrVectorIndexDown) || ctx.Err() != nil:
			return total, err
		}
		select {
		case <-ctx.Done():
			return total, err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
	return total, nil
}

// settleOutboxPause is settleOutbox's first pause after a round that
// applied nothing.
const settleOutboxPause = 100 * time.Millisecond

func trimExt(path, ext string) string {
	if len(path) > len(ext) && path[len(path)-len(ext):] == ext {
		return path[:len(path)-len(ext)]
	}
	return path
}

// countingReader counts the bytes read, for the progress bar.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// showProgress draws a bar of bytes read (with ETA when the size is known)
// described by the import's counters, until the returned stop is called,
// which draws the final counts and ends the line, so what follows on the
// terminal (the JSON summary) starts on a line of its own.
func showProgress(mode string, stderr io.Writer, size int64, counted *countingReader, im *importer.Importer) func() {
	on := mode == "always"
	if mode == "auto" {
		if fd, ok := stderr.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
			on = true
		}
	}
	if !on {
		return func() {}
	}
	// No completion callback: the bar reaches 100% when the input is read,
	// while batches are still being written, and redraws the counts after
	// that; the line ends once, in stop.
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(20),
		progressbar.OptionShowDescriptionAtLineEnd(),
	)
	update := func() {
		s := im.Snapshot()
		bar.Describe(fmt.Sprintf("%d msgs (%d new), %d facts, %d LLM calls, %d tokens, %d bad",
			s.Sent, s.Created, s.Facts, s.LLMCalls, s.PromptTokens+s.CompletionTokens, s.Bad))
		_ = bar.Set64(counted.n.Load()) // only fails on a broken terminal; the import goes on
	}
	// The first frame, drawn before the import reads anything, starts the
	// bar's clock: a clock started at the first update would divide the
	// bytes read by then by microseconds (a first rate in GB/s).
	update()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				update()
				_ = bar.Finish()
				_, _ = io.WriteString(stderr, "\n")
				return
			case <-tick.C:
				update()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
