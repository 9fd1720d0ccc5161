package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// treeCommand is the hidden command that prints the command tree, its
// help texts and flags, as JSON: scripts/man makes the man pages of it, so
// that the pages' generator (cobra/doc and its Markdown and roff
// libraries) stays out of this module.
const treeCommand = "__tree"

// docCommand is a command of the tree, as treeCommand prints it.
type docCommand struct {
	Use      string       `json:"use"`
	Short    string       `json:"short"`
	Long     string       `json:"long"`
	Example  string       `json:"example,omitempty"`
	Flags    []docFlag    `json:"flags,omitempty"`
	Commands []docCommand `json:"commands,omitempty"`
}

// docFlag is a flag of a command.
type docFlag struct {
	Name        string              `json:"name"`
	Shorthand   string              `json:"shorthand,omitempty"`
	Usage       string              `json:"usage"`
	Type        string              `json:"type"`
	Default     string              `json:"default"`
	NoOptDef    string              `json:"no_opt_default,omitempty"` // the value of a flag given alone, as "true" for a bool
	Persistent  bool                `json:"persistent,omitempty"`     // every command takes it
	Annotations map[string][]string `json:"annotations,omitempty"`
}

func newTreeCommand(root *cobra.Command, s streams) *cobra.Command {
	return &cobra.Command{
		Use:    treeCommand,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return printJSON(s.out, describe(root))
		},
	}
}

// describe returns c and its available subcommands as docCommands.
func describe(c *cobra.Command) docCommand {
	d := docCommand{Use: c.Use, Short: c.Short, Long: c.Long, Example: c.Example}
	add := func(f *pflag.Flag, persistent bool) {
		d.Flags = append(d.Flags, docFlag{Name: f.Name, Shorthand: f.Shorthand, Usage: f.Usage, Type: f.Value.Type(),
			Default: f.DefValue, NoOptDef: f.NoOptDefVal, Persistent: persistent, Annotations: f.Annotations})
	}
	c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) { add(f, false) })
	c.PersistentFlags().VisitAll(func(f *pflag.Flag) { add(f, true) })
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			d.Commands = append(d.Commands, describe(sub))
		}
	}
	return d
}
