package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/kgmem/kgmem/api"
)

// serve runs the HTTP API until ctx is cancelled (SIGINT/SIGTERM), then drains
// in-flight requests and closes the backends.
func serve(ctx context.Context, args []string, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.bindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no arguments, got %q", fs.Args())
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	log := cfg.logger()
	log.Info("starting kgmem", append([]any{"version", version}, cfg.logValue()...)...)

	b, err := openBackends(ctx, &cfg, log)
	if err != nil {
		return err
	}
	defer b.close(log)

	srv := api.New(b.engine, api.Options{MaxBodyBytes: cfg.MaxBodyBytes, RequestTimeout: cfg.RequestTimeout}, log)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	log.Info("kgmem is serving", "url", "http://"+ln.Addr().String(), "openapi", "http://"+ln.Addr().String()+"/openapi.json")
	err = srv.Serve(ctx, ln, cfg.ShutdownGrace)
	log.Info("kgmem stopped")
	return err
}
