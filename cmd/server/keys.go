package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/kgmem/kgmem/auth"
	"github.com/spf13/cobra"
)

// keysLong explains where keys live.
const keysLong = `Manage API keys.

Keys live in <data-dir>/keys.db (--data-dir / $KGMEM_DATA_DIR) with the
embedded graph store, and in Neo4j with --graph neo4j ($KGMEM_GRAPH and the
--neo4j-* flags), where every server on that database shares them. The admin
key is $KGMEM_ADMIN_KEY; it needs no entry here.`

// newKeysCommand is `server keys` and its commands create, list and revoke,
// on the key store of the configured data directory or graph store.
func newKeysCommand(std streams) *cobra.Command {
	keys := &cobra.Command{
		Use:   "keys",
		Short: "manage API keys: create, list, revoke",
		Long:  keysLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return errors.New("keys needs a command: create, list or revoke (see `server keys --help`)")
		},
	}

	create := &cobra.Command{
		Use:   "create --name NAME --prefix NS[,NS…] [--right read|write]",
		Short: "create a key scoped to namespace prefixes; the key is printed once",
		Args:  cobra.NoArgs,
	}
	name := create.Flags().String("name", "", "who or what uses the key")
	right := create.Flags().String("right", "write", "read or write")
	prefixes := create.Flags().String("prefix", "", "namespace prefixes the key covers, comma-separated")
	createJSON := create.Flags().Bool("json", false, "print JSON")
	_ = create.RegisterFlagCompletionFunc("right", cobra.FixedCompletions([]string{"read", "write"}, cobra.ShellCompDirectiveNoFileComp))
	createCfg := tableFlags(create, cmdKeys)
	create.RunE = func(cmd *cobra.Command, _ []string) error {
		return createKey(cmd.Context(), createCfg, *name, *right, *prefixes, *createJSON, std.out)
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "list keys (id, name, right, prefixes, created, revoked)",
		Args:  cobra.NoArgs,
	}
	listJSON := list.Flags().Bool("json", false, "print JSON")
	listCfg := tableFlags(list, cmdKeys)
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		return listKeys(cmd.Context(), listCfg, *listJSON, std.out)
	}

	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "revoke a key at once",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("keys revoke takes one key id, got %q", args)
			}
			return nil
		},
	}
	revokeCfg := tableFlags(revoke, cmdKeys)
	revoke.RunE = func(cmd *cobra.Command, args []string) error {
		return revokeKey(cmd.Context(), revokeCfg, args[0], std.out)
	}

	keys.AddCommand(create, list, revoke)
	return keys
}

// openKeyStore opens the key store cfg names.
func openKeyStore(ctx context.Context, cfg *config) (*auth.Store, error) {
	if err := cfg.validateSettings(); err != nil {
		return nil, err
	}
	rec, err := openKeyRecords(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return auth.NewStore(rec), nil
}

// createKey creates a key and prints it, once.
func createKey(ctx context.Context, cfg *config, name, right, prefixes string, asJSON bool, stdout io.Writer) error {
	r, err := auth.ParseRight(right)
	if err != nil {
		return fmt.Errorf("--right: %w", err)
	}
	ps, err := auth.ParsePrefixes(prefixes)
	if err != nil {
		return fmt.Errorf("--prefix: %w", err)
	}
	st, err := openKeyStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	k, plain, err := st.Create(ctx, auth.CreateRequest{Name: name, Right: r, Prefixes: ps})
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			auth.Key
			Secret string `json:"key"`
		}{k, plain})
	}
	fmt.Fprintf(stdout, "%s\n\nkey %s (%s, %s on %v) created; the line above is the key, shown this once.\n", plain, k.ID, k.Name, k.Right, k.Prefixes)
	return nil
}

// listKeys prints every key, revoked ones included.
func listKeys(ctx context.Context, cfg *config, asJSON bool, stdout io.Writer) error {
	st, err := openKeyStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	ks, err := st.List(ctx)
	if err != nil {
		return err
	}
	if asJSON {
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
}

// revokeKey revokes the key id.
func revokeKey(ctx context.Context, cfg *config, id string, stdout io.Writer) error {
	st, err := openKeyStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Revoke(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "key %s revoked\n", id)
	return nil
}
