package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/milvus-io/milvus-sdk-go/v2/client"
)

// Backend pairs a comparison can run its servers on.
const (
	// BackendsEmbedded is SQLite + HNSW in each server's data directory.
	BackendsEmbedded = "embedded"
	// BackendsNeo4jMilvus is one Neo4j and one Milvus shared by every run,
	// each run in a fresh Neo4j scope and a fresh Milvus collection.
	BackendsNeo4jMilvus = "neo4j+milvus"
)

// Backends says what the servers of a comparison store their data in.
type Backends struct {
	// Pair is BackendsEmbedded (or empty) or BackendsNeo4jMilvus.
	Pair string
	// Neo4jURI and MilvusAddr locate the shared servers of BackendsNeo4jMilvus.
	Neo4jURI   string
	MilvusAddr string
	// ServerFlags are passed to every run's server after the backends' own,
	// so that both builds run with the same settings.
	ServerFlags []string
}

// validate checks the pair and that the shared servers are named.
func (b Backends) validate() error {
	switch b.Pair {
	case "", BackendsEmbedded:
		return nil
	case BackendsNeo4jMilvus:
		if b.Neo4jURI == "" {
			return fmt.Errorf("-backends %s needs -neo4j-uri", b.Pair)
		}
		if b.MilvusAddr == "" {
			return fmt.Errorf("-backends %s needs -milvus-addr", b.Pair)
		}
		return nil
	}
	return fmt.Errorf("-backends %q: want %s or %s", b.Pair, BackendsEmbedded, BackendsNeo4jMilvus)
}

// serverArgs are the server flags of one run: none for the embedded pair;
// for Neo4j + Milvus the shared servers with a scope and a collection no
// other run uses, so every run starts empty. cleanup drops the collection.
func (b Backends) serverArgs() (args []string, cleanup func(context.Context) error, err error) {
	if b.Pair != BackendsNeo4jMilvus {
		return slices.Clone(b.ServerFlags), func(context.Context) error { return nil }, nil
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, nil, err
	}
	tag := "compare_" + hex.EncodeToString(id[:])
	collection := "kgmem_" + tag
	args = []string{"--graph", "neo4j", "--neo4j-uri", b.Neo4jURI, "--neo4j-scope", tag,
		"--vector", "milvus", "--milvus-addr", b.MilvusAddr, "--milvus-collection", collection}
	args = append(args, b.ServerFlags...)
	return args, func(ctx context.Context) error { return dropCollection(ctx, b.MilvusAddr, collection) }, nil
}

// dropCollection drops a run's Milvus collection (the run purged its
// namespaces; the collection itself is left by the server).
func dropCollection(ctx context.Context, addr, collection string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cl, err := client.NewClient(ctx, client.Config{Address: addr})
	if err != nil {
		return fmt.Errorf("drop milvus collection %s: %w", collection, err)
	}
	defer cl.Close()
	if err := cl.DropCollection(ctx, collection); err != nil {
		return fmt.Errorf("drop milvus collection %s: %w", collection, err)
	}
	return nil
}
