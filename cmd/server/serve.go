package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/mcpserver"
	"github.com/kgmem/kgmem/memory"
	"github.com/kgmem/kgmem/ui"
	"github.com/spf13/cobra"
)

// newServeCommand is `server serve`.
func newServeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "run the memory server (the default): the REST API, MCP at /mcp, the web explorer at /ui",
		Args:  cobra.NoArgs,
	}
	cfg := tableFlags(cmd, cmdServe)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return serve(cmd.Context(), cfg) }
	return cmd
}

// serve runs the HTTP API until ctx is cancelled (SIGINT/SIGTERM), then drains
// in-flight requests and closes the backends.
func serve(ctx context.Context, cfg *config) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	log := cfg.logger()
	log.Info("starting kgmem", append([]any{"version", version}, cfg.logValue()...)...)
	defer cfg.startGCHeadroom(log).Stop()

	if cfg.PprofAddr != "" {
		if _, err := startPprof(ctx, cfg.PprofAddr, log); err != nil {
			return err
		}
	}
	b, err := openBackendsWith(ctx, cfg, log, forServing)
	if err != nil {
		return err
	}
	defer b.close(log)
	defer b.drainOutbox(ctx)() // before b.close closes the outbox

	// The periodic sweeps end, and are waited for, before the backends
	// close, however serve returns (a listener that fails ends it with ctx
	// still alive).
	background, stopBackground := context.WithCancel(ctx)
	var sweeps sync.WaitGroup
	defer sweeps.Wait()
	defer stopBackground()
	if cfg.SweepInterval > 0 {
		sweeps.Go(func() { sweepEvery(background, b.engine, cfg.SweepInterval, log) })
	}
	if cfg.TTLSweepInterval > 0 {
		sweeps.Go(func() { sweepExpiredEvery(background, b.engine, cfg.TTLSweepInterval, log) })
	}
	authn, keyStore, err := openAuth(ctx, cfg, cfg.Security.AdminKey)
	if err != nil {
		return err
	}
	defer keyStore.Close()
	runner, err := openJobs(ctx, cfg, cfg.Jobs, b, log)
	if err != nil {
		return err
	}
	defer runner.Close() // running jobs stay pending and resume at the next start
	opts := api.Options{MaxBodyBytes: cfg.MaxBodyBytes, RequestTimeout: cfg.RequestTimeout, Metrics: b.metrics, Registerer: b.metrics, Auth: authn, Jobs: runner}
	cfg.Security.apply(&opts)
	if cfg.UI {
		opts.UI = ui.Handler()
	}
	var srv *api.Server
	if cfg.MCP {
		tools, err := mcpOverAPI(func() *api.Server { return srv }, "", cfg.LLMBaseURL != "", "")
		if err != nil {
			return err
		}
		opts.MCP = mcpserver.Handler(tools)
	}
	srv = api.New(b.engine, opts, log)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	if err := checkExposure(ctx, authn, ln.Addr(), log); err != nil {
		_ = ln.Close()
		return err
	}
	// Commands refused the data directory name this address in their error,
	// and `server mcp` bridges to it.
	if err := b.dirLock.announce(localURL(ln.Addr())); err != nil {
		log.Warn("could not record the server's address in the data directory", "error", err)
	}
	log.Info("kgmem is serving", "url", "http://"+ln.Addr().String(), "openapi", "http://"+ln.Addr().String()+"/openapi.json")
	if cfg.MCP {
		log.Info("MCP (streamable HTTP)", "url", "http://"+ln.Addr().String()+"/mcp")
	}
	if cfg.UI {
		log.Info("web explorer", "url", "http://"+ln.Addr().String()+ui.Prefix+"/")
	}
	err = srv.Serve(ctx, ln, cfg.ShutdownGrace)
	log.Info("kgmem stopped")
	return err
}

// sweepEvery runs the forgetting sweep over every namespace at each interval
// until ctx ends.
func sweepEvery(ctx context.Context, engine *memory.Engine, every time.Duration, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		stats, err := engine.SweepAll(ctx)
		if err != nil {
			log.Error("forgetting sweep failed", "error", err)
			continue
		}
		forgotten := 0
		for _, st := range stats {
			forgotten += st.Total().Forgotten
		}
		log.Info("forgetting sweep done", "namespaces", len(stats), "forgotten", forgotten)
	}
}

// sweepExpiredEvery deletes the items whose TTL ran out at each interval
// until ctx ends, each sweep given at most one interval: what a sweep
// leaves, the next one deletes.
func sweepExpiredEvery(ctx context.Context, engine *memory.Engine, every time.Duration, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sctx, cancel := context.WithTimeout(ctx, every)
		deleted, err := engine.SweepExpiredItems(sctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded):
			log.Warn("TTL sweep stopped at its deadline; the next one goes on", "deleted", deleted, "deadline", every)
		case err != nil:
			log.Error("TTL sweep failed", "deleted", deleted, "error", err)
		case deleted > 0:
			log.Info("TTL sweep done", "deleted", deleted)
		}
	}
}
