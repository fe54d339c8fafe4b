package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// configSource finds the variables of the settings: in the environment,
// then in a configuration file (--config-file), which holds the same
// variables one to one.
type configSource struct {
	// file is the configuration file's path, values its variables.
	file   string
	values map[string]string
}

// lookup returns the variable name's value and where it was found.
func (src configSource) lookup(name string) (value, where string) {
	if v := os.Getenv(name); v != "" {
		return v, "$" + name
	}
	if v := src.values[name]; v != "" {
		return v, name + " in " + src.file
	}
	return "", ""
}

// loadFile reads the configuration file --config-file or
// $KGMEM_CONFIG_FILE names, if any, under the environment: the settings
// the command uses whose flag was not given are read again, from the
// environment, then the file, then their defaults.
func (c *config) loadFile(flags *pflag.FlagSet) error {
	if c.ConfigFile == "" {
		return nil
	}
	rows := c.settings()
	values, err := readConfigFile(c.ConfigFile, rows)
	if err != nil {
		return err
	}
	c.read(rows, func(s *setting) bool {
		return s.Flag == "config-file" || s.Flag != "" && flags.Changed(s.Flag)
	}, configSource{file: c.ConfigFile, values: values})
	return nil
}

// readConfigFile parses a configuration file: NAME=value lines, as in an
// env file (`export ` before the name and quotes around the value are
// dropped), blank lines and # comments. Every name must be the variable
// of a setting.
func readConfigFile(path string, rows []setting) (map[string]string, error) {
	known := map[string]bool{}
	for _, s := range rows {
		known[s.envName()] = true
		if s.Fallback != "" {
			known[s.Fallback] = true
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--config-file: %w", err)
	}
	defer f.Close()
	values := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s:%d: want NAME=value, got %q", path, n, line)
		case name == "KGMEM_CONFIG_FILE":
			return nil, fmt.Errorf("%s:%d: a configuration file cannot name another", path, n)
		case !known[name]:
			return nil, fmt.Errorf("%s:%d: %s is not a kgmem setting (`server config --markdown` lists them)", path, n, name)
		}
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		values[name] = value
	}
	if err := sc.Err(); err != nil {
		return nil, errors.Join(fmt.Errorf("read %s", path), err)
	}
	return values, nil
}
