package main

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// A setting is one row of the configuration table (config.settings): a
// flag, the KGMEM_* variable beside it, its built-in default, what values it
// takes and what it means. The flags of every command, the environment
// binding, the validation and the configuration reference all come from
// these rows.
type setting struct {
	// Flag is the flag's name without dashes; empty for a setting read from
	// the environment only (a secret that must not show in the process list).
	Flag string
	// Env is the variable; empty means KGMEM_ and the flag in upper snake
	// case (--data-dir: KGMEM_DATA_DIR).
	Env string
	// Fallback is a variable read when Env is unset (OPENAI_API_KEY).
	Fallback string
	// Component groups the setting in help and in the reference.
	Component component
	// On are the commands that use the setting: they list it in their help
	// and validate it. Every other command accepts it and ignores it, so
	// one set of flags or variables serves every command.
	On commands
	// Usage says what the setting does.
	Usage string
	// Value is the configuration field the setting sets, with its default.
	Value binding
	// Rule is what a value must satisfy (nil: anything Value parses).
	Rule rule
	// Zero and Negative say what 0 and negative values mean when they are
	// not values like the others ("off", "the server's default"); they are
	// accepted whatever Rule says.
	Zero, Negative string
	// Secret settings are masked in help.
	Secret bool
}

// envName is the setting's variable.
func (s *setting) envName() string {
	if s.Env != "" {
		return s.Env
	}
	return "KGMEM_" + strings.ToUpper(strings.ReplaceAll(s.Flag, "-", "_"))
}

// name is how errors name the setting: its flag, or its variable.
func (s *setting) name() string {
	if s.Flag == "" {
		return "$" + s.envName()
	}
	return "--" + s.Flag
}

// allowed describes the values the setting takes, for help and the
// reference: its rule and the meanings of 0 and negative values.
func (s *setting) allowed() string {
	var parts []string
	if s.Rule != nil {
		parts = append(parts, s.Rule.String())
	}
	if s.Zero != "" {
		parts = append(parts, "0: "+s.Zero)
	}
	if s.Negative != "" {
		parts = append(parts, "negative: "+s.Negative)
	}
	return strings.Join(parts, "; ")
}

// help is the flag's usage line.
func (s *setting) help() string {
	h := s.Usage
	if a := s.allowed(); a != "" {
		h += " (" + a + ")"
	}
	return h + " ($" + s.envName() + ")"
}

// from sets the value from the variable, or its fallback, that lookup
// finds; it reports whether one was found. An empty variable counts as
// unset.
func (s *setting) from(lookup func(name string) (value, where string)) (bool, error) {
	raw, where := lookup(s.envName())
	if raw == "" && s.Fallback != "" {
		raw, where = lookup(s.Fallback)
	}
	if raw == "" {
		return false, nil
	}
	if err := s.Value.Set(raw); err != nil {
		return true, fmt.Errorf("%s is %q: %w", where, raw, err)
	}
	return true, nil
}

// check validates the value against the rule; 0 and negative values with
// a meaning of their own pass.
func (s *setting) check() error {
	if s.Rule == nil {
		return nil
	}
	v := s.Value.current()
	if sign, ok := signOf(v); ok && (sign == 0 && s.Zero != "" || sign < 0 && s.Negative != "") {
		return nil
	}
	err := s.Rule.check(v)
	if _, named := s.Rule.(interface{ namesTheSetting() }); err == nil || named {
		return err
	}
	return fmt.Errorf("%s is %s; %w", s.name(), quoteValue(s.Value), err)
}

// addFlag registers the setting on fs, its current value as the default.
func (s *setting) addFlag(fs *pflag.FlagSet) *pflag.Flag {
	f := fs.VarPF(s.Value, s.Flag, "", s.help())
	if s.Value.Type() == "bool" {
		f.NoOptDefVal = "true"
	}
	if s.Secret {
		f.DefValue = ""
	}
	return f
}

// quoteValue shows a value in an error message.
func quoteValue(v binding) string {
	if v.Type() == "string" {
		return strconv.Quote(v.String())
	}
	return v.String()
}

// signOf is the sign of a numeric value.
func signOf(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return cmp.Compare(x, 0), true
	case int64:
		return cmp.Compare(x, 0), true
	case float64:
		return cmp.Compare(x, 0), true
	case time.Duration:
		return cmp.Compare(x, 0), true
	}
	return 0, false
}

// settingType are the types a setting holds.
type settingType interface {
	string | bool | int | int64 | float64 | time.Duration | []string
}

// A binding is a configuration field and its default: a pflag.Value that
// the flag, the environment and the reference share.
type binding interface {
	pflag.Value
	// reset sets the field to its default.
	reset()
	// defaultString is the default, as Set would read it.
	defaultString() string
	// current is the field's value.
	current() any
}

// val binds the field at p, default def.
func val[T settingType](p *T, def T) binding { return &field[T]{p: p, def: def} }

// field is a binding of a T.
type field[T settingType] struct {
	p   *T
	def T
}

func (f *field[T]) reset()                { *f.p = f.def }
func (f *field[T]) current() any          { return *f.p }
func (f *field[T]) String() string        { return formatValue(*f.p) }
func (f *field[T]) defaultString() string { return formatValue(f.def) }

// Set parses s into the field.
func (f *field[T]) Set(s string) error {
	v, err := parseValue[T](s)
	if err != nil {
		return err
	}
	*f.p = v
	return nil
}

// Type names the value's type in help.
func (f *field[T]) Type() string {
	switch any(f.def).(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case int, int64:
		return "int"
	case float64:
		return "float"
	case time.Duration:
		return "duration"
	}
	return "list"
}

// parseValue reads a T as the flag package would; a list is comma-separated.
func parseValue[T settingType](s string) (T, error) {
	var out T
	var err error
	switch p := any(&out).(type) {
	case *string:
		*p = s
	case *bool:
		*p, err = strconv.ParseBool(s)
	case *int:
		var n int64
		n, err = strconv.ParseInt(s, 0, strconv.IntSize)
		*p = int(n)
	case *int64:
		*p, err = strconv.ParseInt(s, 0, 64)
	case *float64:
		*p, err = strconv.ParseFloat(s, 64)
	case *time.Duration:
		*p, err = time.ParseDuration(s)
	case *[]string:
		*p = splitList(s)
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		err = ne.Err // "invalid syntax", without repeating the value
	}
	return out, err
}

// formatValue writes v as parseValue reads it.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

// splitList parses a comma-separated list, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// A rule is what a setting's value must satisfy; its String is shown in
// help and in the reference.
type rule interface {
	// check returns what to use instead when v breaks the rule.
	check(v any) error
	String() string
}

// oneOf allows the listed strings.
type oneOf []string

func (o oneOf) check(v any) error {
	if s, _ := v.(string); slices.Contains(o, s) {
		return nil
	}
	return fmt.Errorf("use one of %s", strings.Join(o, ", "))
}

func (o oneOf) String() string { return "one of " + strings.Join(o, ", ") }

// bounds allows numbers in a range; an open lower end excludes its bound.
type bounds[T cmp.Ordered] struct {
	lo, hi       T
	hasLo, hasHi bool
	openLo       bool
}

// atLeast allows lo and above.
func atLeast[T cmp.Ordered](lo T) rule { return bounds[T]{lo: lo, hasLo: true} }

// above allows values greater than lo.
func above[T cmp.Ordered](lo T) rule { return bounds[T]{lo: lo, hasLo: true, openLo: true} }

// within allows lo..hi, both included.
func within[T cmp.Ordered](lo, hi T) rule { return bounds[T]{lo: lo, hi: hi, hasLo: true, hasHi: true} }

// aboveUpTo allows values greater than lo, up to hi included.
func aboveUpTo[T cmp.Ordered](lo, hi T) rule {
	return bounds[T]{lo: lo, hi: hi, hasLo: true, hasHi: true, openLo: true}
}

func (b bounds[T]) check(v any) error {
	x, ok := v.(T)
	if !ok {
		return fmt.Errorf("want a %T", b.lo)
	}
	if b.hasLo && (x < b.lo || b.openLo && x == b.lo) || b.hasHi && x > b.hi {
		return fmt.Errorf("use %s", b)
	}
	return nil
}

func (b bounds[T]) String() string {
	lo, hi := formatValue(b.lo), formatValue(b.hi)
	switch {
	case b.hasLo && b.hasHi && !b.openLo:
		return lo + ".." + hi
	case b.hasLo && b.hasHi:
		return "> " + lo + " and <= " + hi
	case b.openLo:
		return "> " + lo
	}
	return ">= " + lo
}

// checkedBy is a rule a function checks, whose errors name the setting;
// desc describes it.
type checkedBy[T settingType] struct {
	fn   func(T) error
	desc string
}

func (c checkedBy[T]) check(v any) error {
	x, _ := v.(T)
	return c.fn(x)
}

func (c checkedBy[T]) String() string { return c.desc }

// namesTheSetting marks a rule whose errors name the setting themselves.
func (checkedBy[T]) namesTheSetting() {}

// component groups settings by the part of kgmem they configure.
type component int

// The components, in the order of help and the reference.
const (
	compConfigFile component = iota
	compServer
	compStorage
	compVector
	compEmbedder
	compExtraction
	compSearch
	compRerank
	compForgetting
	compJobs
	compAuth
	compLimits
	compClient
	compRuntime
	numComponents
)

// String is the component's title.
func (c component) String() string {
	switch c {
	case compConfigFile:
		return "Configuration file"
	case compServer:
		return "Server"
	case compStorage:
		return "Graph storage"
	case compVector:
		return "Vector index"
	case compEmbedder:
		return "Embedder"
	case compExtraction:
		return "LLM extraction"
	case compSearch:
		return "Search"
	case compRerank:
		return "Reranker"
	case compForgetting:
		return "Forgetting"
	case compJobs:
		return "Background jobs"
	case compAuth:
		return "Authentication"
	case compLimits:
		return "Limits and timeouts"
	case compClient:
		return "Client of a running server"
	case compRuntime:
		return "Logging and runtime"
	}
	return "Other"
}

// commands is a set of subcommands.
type commands uint16

// The commands that read the configuration table.
const (
	cmdServe commands = 1 << iota
	cmdMCP
	cmdIngest
	cmdSweep
	cmdReindex
	cmdCheck
	cmdKeys

	// everyCommand uses the setting: where the data lives.
	everyCommand = cmdServe | cmdMCP | cmdIngest | cmdSweep | cmdReindex | cmdCheck | cmdKeys
	// engineCommands open the memory engine.
	engineCommands = everyCommand &^ cmdKeys
	// jobCommands run background jobs and answer API calls.
	jobCommands = cmdServe | cmdMCP
)

// names lists the commands in cs, "every command" when all.
func (cs commands) names() string {
	switch cs {
	case everyCommand:
		return "all"
	case engineCommands:
		return "all but keys"
	}
	var out []string
	for _, c := range []struct {
		c    commands
		name string
	}{{cmdServe, "serve"}, {cmdMCP, "mcp"}, {cmdIngest, "ingest"}, {cmdSweep, "sweep"}, {cmdReindex, "reindex"}, {cmdCheck, "check"}, {cmdKeys, "keys"}} {
		if cs&c.c != 0 {
			out = append(out, c.name)
		}
	}
	return strings.Join(out, ", ")
}
