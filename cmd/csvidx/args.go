package main

import (
	"errors"
	"fmt"

	"github.com/csvidx/csvidx/scan"
	"github.com/spf13/cobra"
)

// The checks of the positional arguments that name an indexed CSV. As
// for cat and rg, "-" is standard input; csvidx cannot index it (an index
// points at rows by their offsets in the file, and get reads them there),
// so a FILE of "-" is refused before any work, saying why. A file named
// "-" is ./-.

// exactFile accepts exactly one argument, the CSV file.
func exactFile(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("%s takes one FILE, got %d arguments (see csvidx %s --help)", cmd.Name(), len(args), cmd.Name())
	}
	return indexable(cmd, args[0])
}

// indexable refuses "-" as cmd's FILE.
func indexable(cmd *cobra.Command, path string) error {
	if path != "-" {
		return nil
	}
	return fmt.Errorf("%s: FILE is - (standard input), and an index needs a file: it points at rows by their place in the file; save the data to a file and give its path", cmd.Name())
}

// indexableRight refuses "-" as join's RIGHT, which is looked up through
// its index; LEFT, read once in order, may be standard input.
func indexableRight(path string) error {
	if path != "-" {
		return nil
	}
	return errors.New("join: RIGHT is - (standard input), and RIGHT must be a file with an index, which the join looks its rows up in; give LEFT as - instead, or save the data to a file and index it")
}

// delimiterOption returns the delimiter --delimiter gives, value, or def
// when the flag was not given.
func delimiterOption(cmd *cobra.Command, value string, def byte) (byte, error) {
	if !cmd.Flags().Changed("delimiter") {
		return def, nil
	}
	d, err := scan.ParseDelimiter(value)
	if err != nil {
		return 0, fmt.Errorf("--delimiter %q: %w", value, err)
	}
	return d, nil
}
