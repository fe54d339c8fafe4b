package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// configReferencePath is the generated configuration reference, kept
// current by TestConfigReferenceIsCurrent:
//
//	go run ./cmd/server config --markdown > docs/operations/configuration-reference.md
const configReferencePath = "docs/operations/configuration-reference.md"

// newConfigCommand is `server config`: with --markdown it prints the
// configuration reference.
func newConfigCommand(std streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config --markdown",
		Short: "print the configuration reference: every setting, its variable, default, values and meaning",
		Args:  cobra.NoArgs,
	}
	markdown := cmd.Flags().Bool("markdown", false, "print the configuration reference as Markdown")
	cmd.RunE = func(*cobra.Command, []string) error {
		if !*markdown {
			return errors.New("usage: server config --markdown")
		}
		return writeConfigReference(std.out)
	}
	return cmd
}

// writeConfigReference writes the reference of every setting, grouped by
// component, from the configuration table with its built-in defaults
// (whatever the environment holds). A default under the home directory is
// written with ~ (it is the user's own).
func writeConfigReference(w io.Writer) error {
	var cfg config
	rows := cfg.settings()
	home, _ := os.UserHomeDir()
	var b strings.Builder
	b.WriteString("# Configuration reference\n\n")
	b.WriteString("Every setting of `go run ./cmd/server`: a flag, or the environment variable\n")
	b.WriteString("beside it (the flag wins). A command uses the settings whose commands\n")
	b.WriteString("column names it and lists them in its `--help`; it accepts the others but\n")
	b.WriteString("the client's and ignores them, so one set of flags or variables serves\n")
	b.WriteString("every command. Generated from the configuration table by\n")
	b.WriteString("`go run ./cmd/server config --markdown`; a test fails when this page is\n")
	b.WriteString("stale. [Configuration](configuration.md) explains the settings by topic.\n")
	for c := range numComponents {
		var lines []string
		for i := range rows {
			s := &rows[i]
			if s.Component != c {
				continue
			}
			flag := "—"
			if s.Flag != "" {
				flag = "`--" + s.Flag + "`"
			}
			env := "`" + s.envName() + "`"
			if s.Fallback != "" {
				env += ", else `" + s.Fallback + "`"
			}
			def := s.Value.defaultString()
			if home != "" && strings.HasPrefix(def, home+string(filepath.Separator)) {
				def = "~" + strings.TrimPrefix(def, home)
			}
			if def == "" {
				def = "(none)"
			} else {
				def = "`" + def + "`"
			}
			lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n", flag, env, def,
				cell(s.allowed()), s.On.names(), cell(s.Usage)))
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n| flag | variable | default | values | commands | meaning |\n|---|---|---|---|---|---|\n", c)
		b.WriteString(strings.Join(lines, ""))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell escapes a table cell's pipes.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
