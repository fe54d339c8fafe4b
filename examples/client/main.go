// Command client is a minimal program using kgmem's Go client: it stores
// two facts in a namespace of a running server, asks a question and prints
// the facts found, each with its status.
//
//	go run ./examples/client -url http://127.0.0.1:8080 -namespace demo/alice
//
// The API key, when the server needs one, is read from KGMEM_API_KEY.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "base URL of the kgmem server")
	ns := flag.String("namespace", "demo/alice", "namespace to write to and search")
	question := flag.String("q", "Who leads the ML team?", "the question to search for")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *url, kgmem.Namespace(*ns), *question); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

// run stores the facts in ns at the server at url, searches for question
// and writes the facts found to out.
func run(ctx context.Context, out io.Writer, url string, ns kgmem.Namespace, question string) error {
	c, err := client.New(url, client.WithAPIKey(os.Getenv("KGMEM_API_KEY")))
	if err != nil {
		return err
	}
	_, err = c.AddFacts(ctx, wire.FactsRequest{Namespace: ns, Facts: []wire.Triple{
		{Subject: "Alice", Predicate: "manages", Object: "ML team", ValidAt: "2023-01-01"},
		{Subject: "Bob", Predicate: "leads", Object: "ML team", ValidAt: "2024-03-01"},
	}})
	var problem *client.Error
	if errors.As(err, &problem) {
		return fmt.Errorf("the server refused the facts (field %q): %w", problem.Field, err)
	}
	if err != nil {
		return err
	}
	res, err := c.Search(ctx, wire.SearchRequest{Namespace: ns, Query: question, Limit: 3})
	if err != nil {
		return err
	}
	for _, f := range res.Facts {
		fmt.Fprintf(out, "%-12s %s\n", f.Status, f.Text)
	}
	return nil
}
