// Command quickstart is kgmem's Go client in a few calls: it posts a
// conversation's messages and two facts into a namespace, searches it and
// prints the prompt-ready context the server answers.
//
//	go run ./cmd/server &                 # a server on 127.0.0.1:8080
//	go run ./examples/go/quickstart       # KGMEM_URL, KGMEM_API_KEY to point elsewhere
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
)

// namespace is where the example writes; running it again rewrites the same
// records (messages and facts are idempotent by id and content).
const namespace = "examples/go"

func main() {
	url := os.Getenv("KGMEM_URL")
	if url == "" {
		url = "http://127.0.0.1:8080"
	}
	if err := run(context.Background(), url, os.Getenv("KGMEM_API_KEY"), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run talks to the kgmem server at url (with key, when the server has keys
// on) and writes what it found to stdout.
func run(ctx context.Context, url, key string, stdout io.Writer) error {
	c, err := client.New(url, client.WithAPIKey(key))
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}

	// Messages are kept as episodes of a thread; the server extracts facts
	// from them when it has an LLM.
	ingested, _, err := c.AddMemories(ctx, wire.MemoriesRequest{Namespace: namespace, ThreadID: "chat-1", Messages: []wire.Message{
		{ID: "m1", Role: "user", Name: "Ana", Content: "I moved to Porto in May.", Timestamp: "2024-05-02T10:00:00Z"},
		{ID: "m2", Role: "user", Name: "Ana", Content: "I started at Acme as a data engineer.", Timestamp: "2024-06-10T09:00:00Z"},
	}})
	if err != nil {
		return fmt.Errorf("add messages: %w", err)
	}
	fmt.Fprintf(stdout, "messages: %d episodes\n", len(ingested.Episodes))

	// Facts you already know go in as triples; a later one that contradicts
	// an earlier one retires it.
	added, err := c.AddFacts(ctx, wire.FactsRequest{Namespace: namespace, Facts: []wire.Triple{
		{Subject: "Ana", Predicate: "lives_in", Object: "Lisbon", ValidAt: "2020-01-01"},
		{Subject: "Ana", Predicate: "lives_in", Object: "Porto", ValidAt: "2024-05-01"},
	}})
	if err != nil {
		return fmt.Errorf("add facts: %w", err)
	}
	for _, ch := range added.Facts {
		fmt.Fprintf(stdout, "fact %s: %s\n", ch.Op, ch.Fact.Text)
	}

	found, err := c.Search(ctx, wire.SearchRequest{Namespace: namespace, Query: "Where does Ana live?", Limit: 3})
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	fmt.Fprintf(stdout, "top fact: %s\n", found.Facts[0].Text)
	fmt.Fprintf(stdout, "context:\n%s\n", found.Context)
	return nil
}
