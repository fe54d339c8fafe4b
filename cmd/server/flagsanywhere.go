package main

import (
	"flag"
	"strings"
)

// parseAnywhere parses args with fs, flags before, between and after the
// positional arguments (`ingest chat.jsonl --url http://…`), as the
// command lines users know do: the standard flag package stops at the first
// positional argument and would take every later flag for a file name. A
// "--" ends the flags; everything after it is positional.
func parseAnywhere(fs *flag.FlagSet, args []string) error {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue // -name=value
		}
		// A flag that takes a value takes the next argument, as
		// flag.Parse would.
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return fs.Parse(append(append(flags, "--"), positional...))
}

// isBoolFlag reports whether f is set by its name alone, as flag's bool
// flags are.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
