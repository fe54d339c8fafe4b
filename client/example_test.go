package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/kgmem/kgmem/api/wire"
	"github.com/kgmem/kgmem/client"
)

// The client against a kgmem server: post facts, search, list with an
// iterator, and read a problem answer. (A server is started here so the
// example runs under go test; against your own, pass its URL and key:
// client.New("http://127.0.0.1:8080", client.WithAPIKey(os.Getenv("KGMEM_API_KEY"))).)
func Example() {
	dir, err := os.MkdirTemp("", "kgmem-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	url, stop, err := serve(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	ctx := context.Background()
	c, err := client.New(url, client.WithAPIKey(os.Getenv("KGMEM_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.AddFacts(ctx, wire.FactsRequest{Namespace: "demo/alice", Facts: []wire.Triple{
		{Subject: "Alice", Predicate: "manages", Object: "ML team", ValidAt: "2023-01-01"},
		{Subject: "Bob", Predicate: "leads", Object: "ML team", ValidAt: "2024-03-01"},
	}})
	if err != nil {
		log.Fatal(err)
	}

	res, err := c.Search(ctx, wire.SearchRequest{Namespace: "demo/alice", Query: "Who leads the ML team?", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Facts[0].Text)

	for f, err := range c.Facts(ctx, client.FactQuery{Namespace: "demo/alice"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(f.Status, f.Text)
	}

	_, err = c.Search(ctx, wire.SearchRequest{Namespace: "demo/alice", Query: "x", Limit: 1000})
	var problem *client.Error
	if errors.As(err, &problem) {
		fmt.Println(problem.Status, problem.Field)
	}
	// Unordered output:
	// Bob leads ML team.
	// invalidated Alice manages ML team.
	// current Bob leads ML team.
	// 400 limit
}

// Post a conversation's messages (each kept as an episode, re-posting is
// idempotent) and find them again by search.
func ExampleClient_AddMemories() {
	dir, err := os.MkdirTemp("", "kgmem-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	url, stop, err := serve(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	ctx := context.Background()
	c, err := client.New(url, client.WithAPIKey(os.Getenv("KGMEM_API_KEY")))
	if err != nil {
		log.Fatal(err)
	}
	res, created, err := c.AddMemories(ctx, wire.MemoriesRequest{Namespace: "demo/bob", ThreadID: "chat-1", Messages: []wire.Message{
		{ID: "m1", Role: "user", Name: "Bob", Content: "I moved to Lisbon in May.", Timestamp: "2024-05-02T10:00:00Z"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created, len(res.Episodes))

	found, err := c.Search(ctx, wire.SearchRequest{Namespace: "demo/bob", Query: "Where did Bob move?", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(found.Episodes[0].Content)
	// Output:
	// true 1
	// I moved to Lisbon in May.
}
