// Command server is the kgmem binary: the memory server and its maintenance
// subcommands.
//
//	server [serve] [flags]    run the HTTP API (the default), with MCP at /mcp
//	server mcp [flags]        an MCP server on stdio (in process, or --url a server)
//	server ingest [flags] F…  import chat logs, resumably
//	server sweep [flags]      soft-forget faded memories once
//	server reindex [flags]    rebuild the vectors from the graph
//	server check [flags]      find vectors and records that lack each other
//	server keys create|list|revoke   manage API keys
//	server config --markdown  print the configuration reference
//	server completion bash|zsh|fish|powershell   a shell completion script
//	server version            print the version
//
// Flags go before or after arguments; `server COMMAND --help` lists a
// command's flags. Every setting is a row of one table (config.settings),
// a flag and a KGMEM_* environment variable.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := execute(ctx, filepath.Base(os.Args[0]), os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}); err != nil {
		fmt.Fprintln(os.Stderr, "kgmem:", err)
		stop()
		os.Exit(2)
	}
}

// run runs the command line args as the binary named server would.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return execute(ctx, "server", args, streams{in: os.Stdin, out: stdout, err: stderr})
}

// execute runs the command line args of the binary called name.
func execute(ctx context.Context, name string, args []string, std streams) error {
	root := newRootCommand(name, std)
	root.SetArgs(goStyleFlags(root, args))
	return root.ExecuteContext(ctx)
}
