// Command server is the kgmem binary: the memory server and its maintenance
// subcommands.
//
//	server [serve] [flags]   run the HTTP API (the default), with MCP at /mcp
//	server mcp [flags]       an MCP server on stdio (in process, or --url a server)
//	server sweep [flags]     soft-forget faded memories once
//	server ingest [flags] F  import chat logs, resumably
//	server reindex [flags]   rebuild the vectors from the graph
//	server check [flags]     find vectors and records that lack each other
//	server keys create|list|revoke   manage API keys
//	server version           print the version
//
// Every flag is also a KGMEM_* environment variable; `server serve -h` lists them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "kgmem:", err)
		}
		os.Exit(2)
	}
}

// run dispatches to a subcommand; serve is the default.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		cmd = "version"
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, stderr)
	case "mcp":
		return mcpStdio(ctx, args, os.Stdin, stdout, stderr)
	case "sweep":
		return sweep(ctx, args, stdout, stderr)
	case "keys":
		return keys(ctx, args, stdout, stderr)
	case "ingest":
		return ingest(ctx, args, stdout, stderr)
	case "reindex":
		return reindex(ctx, args, stdout, stderr)
	case "check":
		return check(ctx, args, stdout, stderr)
	case "config":
		return configCommand(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "kgmem", version)
		return nil
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

const usage = `usage: server [command] [flags]

commands:
  serve     run the memory server (default); MCP over HTTP at /mcp
  mcp       an MCP server on stdin/stdout for agent hosts: in process on the configured
            backends, or a bridge to a running server (--url URL --api-key KEY)
  sweep     soft-forget faded memories now (--namespace NS, default all)
  keys      manage API keys: create, list, revoke (see "server keys")
  ingest    import chat logs (JSONL, OpenAI, ChatGPT export, LoCoMo): ingest [flags] FILE...
  reindex   rebuild the vectors from the graph, delete orphan vectors (--namespace NS, default all)
  check     report vectors without records and records without vectors (--namespace NS,
            default all); exits non-zero when there are any
  config    print the configuration reference (config --markdown)
  version   print the version
  help      this text

Run "server serve -h" for the flags; each is also a KGMEM_* environment variable.
`
