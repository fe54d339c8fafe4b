package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/embed"
	"github.com/kgmem/kgmem/memory"
)

// embedderFlags are the in-process benchmarks' --embedder and
// --embed-static-model.
type embedderFlags struct {
	name, staticModel string
}

// bind registers the flags on fs.
func (e *embedderFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&e.name, "embedder", "auto", "embedder: static (scripts/embedder.sh install), hash (alias hashing) or auto, as a new server's default: static when its model is installed, else hash")
	fs.StringVar(&e.staticModel, "embed-static-model", embed.DefaultStaticDir(), "directory of the static embedder's model")
}

// open returns the embedder and the search options a server started with
// it and otherwise its defaults uses (cmd/server config.go): the hashing
// embedder's vector weight is memory.HashingVectorWeight, the static one's
// embed.StaticVectorWeight.
func (e *embedderFlags) open() (kgmem.Embedder, memory.SearchOptions, error) {
	name := e.name
	if name == "auto" {
		name = "hash"
		if embed.StaticInstalled(e.staticModel) {
			name = "static"
		}
	}
	switch name {
	case "hash", "hashing":
		return embed.NewHashing(embed.DefaultHashingDim), memory.HashingSearchOptions(), nil
	case "static":
		s, err := embed.LoadStatic(e.staticModel)
		if errors.Is(err, embed.ErrNoModel) {
			return nil, memory.SearchOptions{}, fmt.Errorf("--embedder static: %w; run scripts/embedder.sh install or set --embed-static-model", err)
		}
		if err != nil {
			return nil, memory.SearchOptions{}, fmt.Errorf("--embedder static: %w", err)
		}
		opts := memory.DefaultSearchOptions()
		opts.VectorWeight = embed.StaticVectorWeight
		return s, opts, nil
	}
	return nil, memory.SearchOptions{}, kgmem.Invalidf("embedder", "is %q; use auto, hash or static", e.name)
}
