// Command openapigen writes api/openapi.json from the route table and the
// wire types (api.OpenAPIDocument). It runs with go generate in api/:
//
//	go generate ./api
package main

import (
	"fmt"
	"os"

	"github.com/kgmem/kgmem/api"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: openapigen OUTPUT")
		os.Exit(2)
	}
	doc, err := api.OpenAPIDocument()
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[1], doc, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}
