package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api"
	"github.com/kgmem/kgmem/client"
	"github.com/kgmem/kgmem/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// mcpStdio runs the MCP server on stdin and stdout: in process on the
// configured backends (the flags and KGMEM_* variables of serve), or as a
// bridge to a running server with --url, or, without --url, to the server
// that holds the data directory when it recorded its address. Logs go to
// stderr.
func mcpStdio(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	var jc jobsConfig
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.bindFlags(fs)
	jc.bind(fs, &cfg)
	ns := fs.String("namespace", os.Getenv("KGMEM_MCP_NAMESPACE"), "the namespace every tool works in; empty: each call names one ($KGMEM_MCP_NAMESPACE)")
	url := fs.String("url", os.Getenv("KGMEM_URL"), "bridge to the kgmem server at this URL instead of opening the backends in process ($KGMEM_URL)")
	key := fs.String("api-key", os.Getenv("KGMEM_API_KEY"), "API key for --url ($KGMEM_API_KEY)")
	extract := fs.Bool("extract", false, "with --url: add_memory extracts facts by default (the server must have an LLM); in process: on when an LLM is configured")
	if err := parseAnywhere(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("mcp takes no arguments, got %q", fs.Args())
	}
	if *ns != "" {
		if _, err := kgmem.ParseNamespace(*ns); err != nil {
			return fmt.Errorf("--namespace: %w", err)
		}
	}
	transport := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	bridge := func(url string) error {
		c, err := client.New(url, client.WithAPIKey(*key))
		if err != nil {
			return fmt.Errorf("--url: %w", err)
		}
		s, err := mcpserver.New(mcpserver.Options{Namespace: kgmem.Namespace(*ns), Extract: *extract, Version: version,
			Client: func(http.Header) (*client.Client, error) { return c, nil }})
		if err != nil {
			return err
		}
		return s.Run(ctx, transport)
	}
	if *url != "" {
		return bridge(*url)
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	if err := jc.validate(); err != nil {
		return err
	}
	log := cfg.logger()
	b, err := openBackendsWith(ctx, &cfg, log, forServing)
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
	runner, err := openJobs(ctx, &cfg, jc, b, log)
	if err != nil {
		return err
	}
	defer runner.Close()
	srv := api.New(b.engine, api.Options{MaxBodyBytes: cfg.MaxBodyBytes, RequestTimeout: cfg.RequestTimeout, Jobs: runner}, log)
	s, err := mcpOverAPI(func() *api.Server { return srv }, kgmem.Namespace(*ns), cfg.LLMBaseURL != "", "")
	if err != nil {
		return err
	}
	log.Info("kgmem MCP server on stdio", "namespace", *ns, "data_dir", cfg.DataDir, "graph", cfg.Graph)
	return s.Run(ctx, transport)
}

// nopWriteCloser leaves stdout open when the MCP session closes.
type nopWriteCloser struct{ io.Writer }

// Close does nothing.
func (nopWriteCloser) Close() error { return nil }
