package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// inProcessURL names the host of in-process API calls (no network is used).
const inProcessURL = "http://kgmem.in-process"

// mcpOverAPI returns the MCP server whose tools call srv's REST API in
// process. Over HTTP (POST /mcp) each call carries the MCP request's bearer
// key, so the API checks it as it checks any REST request; over stdio there
// is no header and the call is made as the local process (key, if any).
func mcpOverAPI(srv func() *api.Server, ns kgmem.Namespace, extract bool, key string) (*mcp.Server, error) {
	return mcpserver.New(mcpserver.Options{
		Namespace: ns,
		Extract:   extract,
		Version:   version,
		Client: func(h http.Header) (*client.Client, error) {
			k := key
			if b := bearerOf(h); b != "" {
				k = b
			}
			return client.New(inProcessURL, client.WithHandler(srv().InProcess()), client.WithAPIKey(k), client.WithRetries(0, 0))
		},
	})
}

// bearerOf returns the token of an "Authorization: Bearer" header.
func bearerOf(h http.Header) string {
	scheme, token, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// newMCPCommand is `server mcp`.
func newMCPCommand(std streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "an MCP server on stdin/stdout for agent hosts: in process on the configured backends, or a bridge to a running server (--url)",
		Args:  cobra.NoArgs,
	}
	extract := cmd.Flags().Bool("extract", false, "with --url: add_memories extracts facts by default (the server must have an LLM); in process: on when an LLM is configured")
	cfg := tableFlags(cmd, cmdMCP)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return mcpStdio(cmd.Context(), cfg, *extract, std) }
	return cmd
}

// mcpStdio runs the MCP server on stdin and stdout: in process on the
// configured backends (the settings of serve), or as a bridge to a running
// server with --url, or, without --url, to the server that holds the data
// directory when it recorded its address. Logs go to stderr.
func mcpStdio(ctx context.Context, cfg *config, extract bool, std streams) error {
	if err := checkNamespace(cfg.MCPNamespace); err != nil {
		return err
	}
	ns := cfg.MCPNamespace
	transport := &mcp.IOTransport{Reader: io.NopCloser(std.in), Writer: nopWriteCloser{std.out}}
	bridge := func(url string) error {
		c, err := client.New(url, client.WithAPIKey(cfg.APIKey))
		if err != nil {
			return fmt.Errorf("--url: %w", err)
		}
		s, err := mcpserver.New(mcpserver.Options{Namespace: kgmem.Namespace(ns), Extract: extract, Version: version,
			Client: func(http.Header) (*client.Client, error) { return c, nil }})
		if err != nil {
			return err
		}
		return s.Run(ctx, transport)
	}
	if cfg.URL != "" {
		return bridge(cfg.URL)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	log := cfg.logger()
	b, err := openBackendsWith(ctx, cfg, log, forServing)
	var inUse *dataDirInUseError
	if errors.As(err, &inUse) && inUse.URL != "" {
		// A server holds the data directory and said where it listens: an
		// MCP client launching `server mcp` gets that server's memory rather
		// than a closed connection.
		log.Info("the data directory is held by a running kgmem server; bridging to it (pass --url to choose)", "url", inUse.URL, "pid", inUse.PID)
		return bridge(inUse.URL)
	}
	if err != nil {
		return err
	}
	defer b.close(log)
	defer b.drainOutbox(ctx)() // before b.close closes the outbox
	runner, err := openJobs(ctx, cfg, cfg.Jobs, b, log)
	if err != nil {
		return err
	}
	defer runner.Close()
	srv := api.New(b.engine, api.Options{MaxBodyBytes: cfg.MaxBodyBytes, RequestTimeout: cfg.RequestTimeout, Jobs: runner}, log)
	s, err := mcpOverAPI(func() *api.Server { return srv }, kgmem.Namespace(ns), cfg.LLMBaseURL != "", "")
	if err != nil {
		return err
	}
	log.Info("kgmem MCP server on stdio", "namespace", ns, "data_dir", cfg.DataDir, "graph", cfg.Graph)
	return s.Run(ctx, transport)
}

// nopWriteCloser leaves stdout open when the MCP session closes.
type nopWriteCloser struct{ io.Writer }

// Close does nothing.
func (nopWriteCloser) Close() error { return nil }
