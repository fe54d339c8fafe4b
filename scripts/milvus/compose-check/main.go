// Command compose-check validates a Compose file without a Docker engine or
// the compose CLI plugin. It loads the file with compose-go, the loader that
// docker compose v2 itself uses (Compose Specification JSON schema,
// interpolation, anchors, normalisation), and prints the resolved project.
//
//	cd scripts/milvus/compose-check && go run . ../../../docker-compose.yml
//
// It is a separate Go module so its dependencies stay out of kgmem's go.mod.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
	"gopkg.in/yaml.v3"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check FILE...")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions(os.Args[1:], cli.WithOsEnv, cli.WithName("kgmem"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "compose-check:", err)
		os.Exit(1)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "compose-check: INVALID:", err)
		os.Exit(1)
	}
	out, err := yaml.Marshal(project)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compose-check:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
	fmt.Fprintf(os.Stderr, "compose-check: %s is valid (%d services)\n", os.Args[1], len(project.Services))
}
