package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/kgmem/kgmem/auth"
)

const keysUsage = `usage: server keys <create|list|revoke> [flags]

  keys create --name NAME --prefix NS[,NS…] [--right read|write]
               create a key scoped to namespace prefixes; the key is printed once
  keys list    list keys (id, name, right, prefixes, created, revoked)
  keys revoke [flags] ID
               revoke a key at once

Keys live in <data-dir>/keys.db (--data-dir / $KGMEM_DATA_DIR) with the
embedded graph store, and in Neo4j with --graph neo4j ($KGMEM_GRAPH and the
--neo4j-* flags), where every server on that database shares them. The admin
key is $KGMEM_ADMIN_KEY; it needs no entry here.
`

// keys manages the API keys in the data directory's key store.
func keys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("keys needs a command\n%s", keysUsage)
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, keysUsage)
		return nil
	}
	fs := flag.NewFlagSet("keys "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	cfg.bindFlags(fs)
	name := fs.String("name", "", "who or what uses the key (create)")
	right := fs.String("right", "write", "read or write (create)")
	prefixes := fs.String("prefix", "", "namespace prefixes the key covers, comma-separated (create)")
	asJSON := fs.Bool("json", false, "print JSON (create, list)")
	if err := parseAnywhere(fs, args); err != nil {
		return err
	}
	open := func() (*auth.Store, error) {
		rec, err := openKeyRecords(ctx, &cfg)
		if err != nil {
			return nil, err
		}
		return auth.NewStore(rec), nil
	}
	switch cmd {
	case "create":
		r, err := auth.ParseRight(*right)
		if err != nil {
			return fmt.Errorf("--right: %w", err)
		}
		ps, err := auth.ParsePrefixes(*prefixes)
		if err != nil {
			return fmt.Errorf("--prefix: %w", err)
		}
		st, err := open()
		if err != nil {
			return err
		}
		defer st.Close()
		k, plain, err := st.Create(ctx, auth.CreateRequest{Name: *name, Right: r, Prefixes: ps})
		if err != nil {
			return fmt.Errorf("create key: %w", err)
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(struct {
				auth.Key
				Secret string `json:"key"`
			}{k, plain})
		}
		fmt.Fprintf(stdout, "%s\n\nkey %s (%s, %s on %v) created; the line above is the key, shown this once.\n", plain, k.ID, k.Name, k.Right, k.Prefixes)
		return nil
	case "list":
		st, err := open()
		if err != nil {
			return err
		}
		defer st.Close()
		ks, err := st.List(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(ks)
		}
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tRIGHT\tPREFIXES\tCREATED\tREVOKED")
		for _, k := range ks {
			revoked := "-"
			if k.RevokedAt != nil {
				revoked = k.RevokedAt.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\n", k.ID, k.Name, k.Right, k.Prefixes, k.CreatedAt.Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return fmt.Errorf("keys revoke takes one key id, got %q", fs.Args())
		}
		st, err := open()
		if err != nil {
			return err
		}
		defer st.Close()
		if err := st.Revoke(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "key %s revoked\n", fs.Arg(0))
		return nil
	}
	return fmt.Errorf("unknown keys command %q\n%s", cmd, keysUsage)
}
