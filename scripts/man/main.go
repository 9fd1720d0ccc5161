// Command man writes csvidx's man pages, csvidx.1 and one page per command
// (csvidx-build.1, ...), from the commands' own help, with cobra's doc
// generator. It reads the command tree from `csvidx __tree` (a hidden
// command that prints it as JSON) and is a module of its own, so that the
// generator's dependencies (cobra/doc, go-md2man) stay out of csvidx's.
//
//	cd scripts/man && go run . -dir ../../docs/man
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func main() {
	dir := flag.String("dir", "../../docs/man", "directory to write the pages to")
	bin := flag.String("bin", "", "the csvidx binary to read the commands of (default: go run ../../cmd/csvidx)")
	flag.Parse()
	root, err := readTree(*bin)
	if err == nil {
		err = write(root, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "man:", err)
		os.Exit(1)
	}
	fmt.Println("wrote the man pages to", *dir, "(read one with: man -l", *dir+"/csvidx.1)")
}

// docCommand and docFlag are what csvidx __tree prints (cmd/csvidx/tree.go).
type docCommand struct {
	Use      string       `json:"use"`
	Short    string       `json:"short"`
	Long     string       `json:"long"`
	Example  string       `json:"example"`
	Flags    []docFlag    `json:"flags"`
	Commands []docCommand `json:"commands"`
}

type docFlag struct {
	Name        string              `json:"name"`
	Shorthand   string              `json:"shorthand"`
	Usage       string              `json:"usage"`
	Type        string              `json:"type"`
	Default     string              `json:"default"`
	NoOptDef    string              `json:"no_opt_default"`
	Persistent  bool                `json:"persistent"`
	Annotations map[string][]string `json:"annotations"`
}

// readTree runs csvidx __tree and rebuilds the command tree from it.
func readTree(bin string) (*cobra.Command, error) {
	cmd := exec.Command("go", "run", "./cmd/csvidx", "__tree")
	cmd.Dir = "../.." // the repository, from scripts/man
	if bin != "" {
		cmd = exec.Command(bin, "__tree")
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	var d docCommand
	if err := json.Unmarshal(out, &d); err != nil {
		return nil, fmt.Errorf("csvidx __tree printed no tree: %w", err)
	}
	return rebuild(d), nil
}

// rebuild makes a cobra command of d, with d's flags and subcommands. The
// commands do nothing: they only carry their help.
func rebuild(d docCommand) *cobra.Command {
	c := &cobra.Command{Use: d.Use, Short: d.Short, Long: d.Long, Example: d.Example, Run: func(*cobra.Command, []string) {}}
	for _, f := range d.Flags {
		set := c.Flags()
		if f.Persistent {
			set = c.PersistentFlags()
		}
		fl := set.VarPF(&value{typ: f.Type, def: f.Default}, f.Name, f.Shorthand, f.Usage)
		fl.DefValue, fl.NoOptDefVal, fl.Annotations = f.Default, f.NoOptDef, f.Annotations
	}
	for _, sub := range d.Commands {
		c.AddCommand(rebuild(sub))
	}
	return c
}

// value is a flag's value as the help shows it: its type and default.
type value struct{ typ, def string }

func (v *value) String() string     { return v.def }
func (v *value) Set(s string) error { v.def = s; return nil }
func (v *value) Type() string       { return v.typ }

// write writes the pages of root's tree into dir.
func write(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root.DisableAutoGenTag = true
	// The date is the page's: SOURCE_DATE_EPOCH sets it, for reproducible pages.
	header := &doc.GenManHeader{Title: "CSVIDX", Section: "1", Source: "csvidx", Manual: "csvidx manual"}
	return doc.GenManTree(root, header, dir)
}
