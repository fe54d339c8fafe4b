package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// checkPprofAddr accepts no address (no profiler) or a loopback host with a
// port: the profiler shows goroutine stacks and memory, and is never behind
// the API keys.
func checkPprofAddr(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("--pprof-addr %q: want host:port on loopback, e.g. 127.0.0.1:6060", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--pprof-addr %q: the profiler listens on loopback only (127.0.0.1 or ::1), never behind the API keys", addr)
	}
	return nil
}

// startPprof serves net/http/pprof on its own loopback listener until ctx
// ends; it returns the address it listens on.
func startPprof(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	if err := checkPprofAddr(addr); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("pprof: listen on %s: %w", addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		_ = ln.Close()
		return "", fmt.Errorf("--pprof-addr %q resolved to %s, which is not loopback", addr, ln.Addr())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof listener stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	url := "http://" + ln.Addr().String() + "/debug/pprof/"
	log.Info("pprof (loopback only)", "url", url)
	return ln.Addr().String(), nil
}
