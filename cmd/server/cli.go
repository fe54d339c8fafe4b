package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// streams are a command's standard input and outputs.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// componentAnnotation marks a flag that is a row of the configuration
// table with its component, by which help groups it.
const componentAnnotation = "kgmem/component"

// newRootCommand builds the command line: name (the binary's name) runs
// serve, and its subcommands the rest.
func newRootCommand(name string, std streams) *cobra.Command {
	root := &cobra.Command{
		Use:   name,
		Short: "kgmem, a knowledge-graph memory server",
		Long: "kgmem, a knowledge-graph memory server. Without a command, " + name + " runs serve;\n" +
			"`" + name + " serve --help` lists its settings. Every setting is a flag and a KGMEM_*\n" +
			"environment variable (the flag wins); `" + name + " config --markdown` prints them all.",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(std.in)
	root.SetOut(std.out)
	root.SetErr(std.err)
	root.SetVersionTemplate("kgmem {{.Version}}\n")
	root.SetUsageFunc(writeUsage)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage", err, cmd.CommandPath())
	})
	// The root is serve, its settings accepted but listed by `serve --help`.
	cfg := tableFlags(root, cmdServe)
	root.Flags().VisitAll(func(f *pflag.Flag) { f.Hidden = true })
	root.RunE = func(cmd *cobra.Command, _ []string) error { return serve(cmd.Context(), cfg) }
	root.AddCommand(
		newServeCommand(),
		newMCPCommand(std),
		newIngestCommand(std),
		newMaintenanceCommand("sweep", "soft-forget faded memories now", cmdSweep, std, sweep),
		newMaintenanceCommand("reindex", "rebuild the vectors from the graph and delete orphan vectors", cmdReindex, std, reindex),
		newMaintenanceCommand("check", "report vectors without records and records without vectors; exits non-zero when there are any", cmdCheck, std, check),
		newKeysCommand(std),
		newConfigCommand(std),
		&cobra.Command{Use: "version", Short: "print the version", Args: cobra.NoArgs, Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "kgmem", version)
		}},
	)
	return root
}

// tableFlags registers the configuration table's settings on cmd: those
// the commands in on use, listed by component in help, and the others
// hidden (accepted and ignored, as their variables are, so that one set of
// flags serves every command), unless cmd has a flag of that name of its
// own. It returns the configuration they set, bound to the defaults and the
// environment, and, once the flags are parsed, the configuration file.
func tableFlags(cmd *cobra.Command, on commands) *config {
	cfg := &config{}
	rows := cfg.bind(on)
	fs := cmd.Flags()
	fs.SortFlags = false // help lists the settings in the table's order
	for i := range rows {
		s := &rows[i]
		if s.Flag == "" {
			continue
		}
		if s.On&on == 0 {
			// A client's settings name the server it talks to: they
			// mean nothing to a command that is not one.
			if s.Component != compClient && fs.Lookup(s.Flag) == nil {
				s.addFlag(fs).Hidden = true
			}
			continue
		}
		f := s.addFlag(fs)
		f.Annotations = map[string][]string{componentAnnotation: {strconv.Itoa(int(s.Component))}}
		if choices, ok := s.Rule.(oneOf); ok {
			_ = cmd.RegisterFlagCompletionFunc(s.Flag, cobra.FixedCompletions(choices, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return cfg.loadFile(cmd.Flags()) }
	return cfg
}

// writeUsage prints a command's usage: its subcommands, its own flags, then
// the configuration settings it uses, grouped by component.
func writeUsage(cmd *cobra.Command) error {
	var b strings.Builder
	b.WriteString("Usage:\n")
	if cmd.Runnable() {
		fmt.Fprintf(&b, "  %s\n", cmd.UseLine())
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "  %s [command]\n", cmd.CommandPath())
		b.WriteString("\nCommands:\n")
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				fmt.Fprintf(&b, "  %-*s %s\n", cmd.NamePadding(), c.Name(), c.Short)
			}
		}
	}
	own := pflag.NewFlagSet("own", pflag.ContinueOnError)
	own.SortFlags = false
	groups := make([]*pflag.FlagSet, numComponents)
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		c, ok := f.Annotations[componentAnnotation]
		if !ok {
			own.AddFlag(f)
			return
		}
		n, _ := strconv.Atoi(c[0])
		if groups[n] == nil {
			groups[n] = pflag.NewFlagSet(component(n).String(), pflag.ContinueOnError)
			groups[n].SortFlags = false
		}
		groups[n].AddFlag(f)
	})
	if own.HasAvailableFlags() {
		b.WriteString("\nFlags:\n" + own.FlagUsages())
	}
	for n, g := range groups {
		if g != nil {
			fmt.Fprintf(&b, "\n%s:\n%s", component(n), g.FlagUsages())
		}
	}
	if cmd.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\nUse \"%s [command] --help\" for more about a command.\n", cmd.CommandPath())
	}
	_, err := io.WriteString(cmd.OutOrStderr(), b.String())
	return err
}

// goStyleFlags rewrites -name and -name=value, the spelling of Go's flag
// package that earlier releases accepted, to --name for every long flag
// of the command line; what follows "--" is left as it is.
func goStyleFlags(root *cobra.Command, args []string) []string {
	known := map[string]bool{"help": true, "version": true}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, len(args))
	for i, a := range args {
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(name) > 1 && known[name] {
			a = "-" + a
		}
		out[i] = a
	}
	return out
}
