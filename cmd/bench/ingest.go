package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/kgmem/kgmem/chatlog/gen"
)

// runGenChatlog writes a seeded synthetic JSONL chat log to stdout, the input
// of the ingestion figures (`server ingest`, chatlog/importer's bench test).
func runGenChatlog(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg gen.Config
	fs := flag.NewFlagSet("gen-chatlog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.Messages, "messages", 100000, "messages to write")
	fs.IntVar(&cfg.Namespaces, "namespaces", 10, "namespaces gen/ns<k> the threads are spread over")
	fs.IntVar(&cfg.MessagesPerThread, "per-thread", 100, "messages per thread")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := gen.Write(stdout, cfg); err != nil {
		return fmt.Errorf("gen-chatlog: %w", err)
	}
	return nil
}
