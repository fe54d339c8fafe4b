package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// configReferencePath is the generated configuration reference, kept
// current by TestConfigReferenceIsCurrent:
//
//	go run ./cmd/server config --markdown > docs/operations/configuration-reference.md
const configReferencePath = "docs/operations/configuration-reference.md"

// envInUsage finds the environment variable a flag's usage names last,
// "($KGMEM_ADDR)", as every flag's does.
var envInUsage = regexp.MustCompile(`\s*\(\$(KGMEM_[A-Z0-9_]+)\)$`)

// configCommand is `server config`: with --markdown it prints the
// configuration reference, every flag of serve with its variable, built-in
// default and meaning, from the flags themselves.
func configCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	markdown := fs.Bool("markdown", false, "print the configuration reference as Markdown")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*markdown || fs.NArg() > 0 {
		return fmt.Errorf("usage: server config --markdown")
	}
	return writeConfigReference(stdout)
}

// writeConfigReference writes the reference of serve's flags, bound to
// their built-in defaults whatever the environment holds. A default under
// the home directory is written with ~ (it is the user's own).
func writeConfigReference(w io.Writer) error {
	cfg := config{ignoreEnv: true}
	var sec securityConfig
	var jc jobsConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	bindServeFlags(fs, &cfg, &sec, &jc)
	home, _ := os.UserHomeDir()
	var b strings.Builder
	b.WriteString("# Configuration reference\n\n")
	b.WriteString("Every setting of `go run ./cmd/server` (`serve`): a flag, or the environment\n")
	b.WriteString("variable beside it (the flag wins). Generated from the flags themselves by\n")
	b.WriteString("`go run ./cmd/server config --markdown`; a test fails when this page is\n")
	b.WriteString("stale. [Configuration](configuration.md) explains them by topic.\n\n")
	b.WriteString("| flag | variable | default | meaning |\n|---|---|---|---|\n")
	var missing []string
	fs.VisitAll(func(f *flag.Flag) {
		m := envInUsage.FindStringSubmatch(f.Usage)
		if m == nil {
			missing = append(missing, f.Name)
			return
		}
		meaning := strings.TrimSpace(envInUsage.ReplaceAllString(f.Usage, ""))
		def := f.DefValue
		if home != "" && strings.HasPrefix(def, home+string(filepath.Separator)) {
			def = "~" + strings.TrimPrefix(def, home)
		}
		switch def {
		case "", "[]":
			def = "(none)"
		default:
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `--%s` | `%s` | %s | %s |\n", f.Name, m[1], def, strings.ReplaceAll(meaning, "|", `\|`))
	})
	if len(missing) > 0 {
		return fmt.Errorf("flags without an environment variable in their usage: %s", strings.Join(missing, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
