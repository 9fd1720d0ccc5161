// Command man writes csvidx's man pages, csvidx.1 and one page per command
// (csvidx-build.1, ...), from the commands' own help, with cobra's doc
// generator, into docs/man, where they are committed. It reads the command
// tree from `csvidx __tree` (a hidden command that prints it as JSON) and is
// a module of its own, so that the generator's dependencies (cobra/doc,
// go-md2man) stay out of csvidx's. Run it after changing a help text; its
// test fails while docs/man is not what it writes.
//
//	cd scripts/man && go run .
//
// A page whose text has not changed keeps the date it has, so that running
// it again changes no file.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// committed is where the pages live in the repository, from scripts/man.
const committed = "../../docs/man"

func main() {
	dir := flag.String("dir", committed, "directory to write the pages to")
	bin := flag.String("bin", "", "the csvidx binary to read the commands of (default: go run ../../cmd/csvidx)")
	flag.Parse()
	root, err := readTree(*bin)
	var pages map[string][]byte
	if err == nil {
		pages, err = render(root)
	}
	var changed []string
	if err == nil {
		changed, err = update(pages, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "man:", err)
		os.Exit(1)
	}
	fmt.Printf("%d pages in %s, %d changed (read one with: man -l %s)\n", len(pages), *dir, len(changed), filepath.Join(*dir, "csvidx.1"))
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

// readTree runs csvidx __tree and returns the command tree it prints.
func readTree(bin string) (docCommand, error) {
	cmd := exec.Command("go", "run", "./cmd/csvidx", "__tree")
	cmd.Dir = "../.." // the repository, from scripts/man
	if bin != "" {
		cmd = exec.Command(bin, "__tree")
	}
	cmd.Stderr = os.Stderr
	var d docCommand
	out, err := cmd.Output()
	if err != nil {
		return d, fmt.Errorf("%s: %w", cmd, err)
	}
	if err := json.Unmarshal(out, &d); err != nil {
		return d, fmt.Errorf("csvidx __tree printed no tree: %w", err)
	}
	return d, nil
}

// completionCommand is cobra's command that prints completion scripts. Its
// help and its shells' are cobra's, written in Markdown; every other
// command's help is plain text.
const completionCommand = "completion"

// rebuild makes a cobra command of d, with d's flags and subcommands. The
// commands do nothing: they only carry their help. Plain help text is
// escaped (see plain), since cobra/doc reads help as Markdown.
func rebuild(d docCommand, markdown bool) *cobra.Command {
	text := plain
	if markdown {
		text = func(s string) string { return s }
	}
	c := &cobra.Command{Use: d.Use, Short: text(d.Short), Long: text(d.Long), Example: d.Example, Run: func(*cobra.Command, []string) {}}
	for _, f := range d.Flags {
		set := c.Flags()
		if f.Persistent {
			set = c.PersistentFlags()
		}
		fl := set.VarPF(&value{typ: f.Type, def: f.Default}, f.Name, f.Shorthand, text(unquoteUsage(f.Usage)))
		fl.DefValue, fl.NoOptDefVal, fl.Annotations = f.Default, f.NoOptDef, f.Annotations
	}
	for _, sub := range d.Commands {
		c.AddCommand(rebuild(sub, markdown || sub.Use == completionCommand))
	}
	return c
}

// value is a flag's value as the help shows it: its type and default.
type value struct{ typ, def string }

func (v *value) String() string     { return v.def }
func (v *value) Set(s string) error { v.def = s; return nil }
func (v *value) Type() string       { return v.typ }

// unquoteUsage removes the back quotes that name a flag's value in its
// usage (`PATH`), as csvidx --help does (pflag's UnquoteUsage).
func unquoteUsage(usage string) string {
	return strings.ReplaceAll(usage, "`", "")
}

// markdownPunctuation are the characters a backslash escapes in the
// Markdown that cobra/doc's go-md2man reads (blackfriday's escapeChars).
const markdownPunctuation = "\\`*_{}[]()#+-.!:|&<>~"

// plain escapes the Markdown of s, help written as plain text, so that the
// page says what the help says: KEY<TAB>COUNT is no HTML tag to drop, a_b_c
// no emphasis. Lines and paragraphs stay as they are.
func plain(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(markdownPunctuation, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// render returns the man pages of d's tree, by file name.
func render(d docCommand) (map[string][]byte, error) {
	root := rebuild(d, false)
	root.DisableAutoGenTag = true
	dir, err := os.MkdirTemp("", "csvidx-man-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// The date is today's unless SOURCE_DATE_EPOCH says otherwise; update
	// keeps a page's old date when nothing else changed.
	header := &doc.GenManHeader{Title: "CSVIDX", Section: "1", Source: "csvidx", Manual: "csvidx manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.1"))
	if err != nil {
		return nil, err
	}
	pages := make(map[string][]byte, len(names))
	for _, name := range names {
		if pages[filepath.Base(name)], err = os.ReadFile(name); err != nil {
			return nil, err
		}
	}
	return pages, nil
}

// pageGlob matches the pages of dir that this command writes.
const pageGlob = "csvidx*.1"

// differences returns, sorted, the names of the pages that dir lacks or
// holds with another text than pages' (dates aside), and those of dir's
// pages that pages does not have: what update would write or remove.
func differences(pages map[string][]byte, dir string) ([]string, error) {
	var diff []string
	for name, page := range pages {
		old, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if err != nil || !bytes.Equal(undated(old), undated(page)) {
			diff = append(diff, name)
		}
	}
	have, err := filepath.Glob(filepath.Join(dir, pageGlob))
	if err != nil {
		return nil, err
	}
	for _, name := range have {
		if _, ok := pages[filepath.Base(name)]; !ok {
			diff = append(diff, filepath.Base(name))
		}
	}
	slices.Sort(diff)
	return diff, nil
}

// update makes dir hold pages and no other page of csvidx: it writes the
// pages that are new or changed, and removes those of commands that are
// gone. It returns the names of the pages it wrote or removed.
func update(pages map[string][]byte, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	diff, err := differences(pages, dir)
	if err != nil {
		return nil, err
	}
	for _, name := range diff {
		path := filepath.Join(dir, name)
		if page, ok := pages[name]; ok {
			err = os.WriteFile(path, page, 0o644)
		} else {
			err = os.Remove(path)
		}
		if err != nil {
			return nil, err
		}
	}
	return diff, nil
}

// thDate matches the date of a page's title line:
// .TH "CSVIDX" "1" "Dec 2026" "csvidx" "csvidx manual".
var thDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*" )"[^"]*"`)

// undated returns page without the date of its title line.
func undated(page []byte) []byte {
	return thDate.ReplaceAll(page, []byte(`$1""`))
}
