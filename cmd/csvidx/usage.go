package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// The command line's own errors: a word that names no command, a shell
// that completion does not know, a help topic that is no command. Cobra
// answers the last two with help text and exit status 0, which
// "csvidx completion bsh > completions/csvidx" would install; here they
// are errors, and each says what was wrong with which word.

// shells are the shells csvidx completion writes a script for, as cobra
// names its subcommands.
var shells = []string{"bash", "zsh", "fish", "powershell"}

// suggestDistance is the largest edit distance of a suggested word from a
// mistyped one (cobra's default, which it sets only for the root's own
// suggestions).
const suggestDistance = 2

// strictCompletion makes the completion command refuse a missing or
// unknown shell (cobra's prints its help for them, with status 0). It
// creates cobra's completion command if the command line asks for it.
func strictCompletion(root *cobra.Command, args []string) {
	root.InitDefaultCompletionCmd(args...)
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(_ *cobra.Command, args []string) error {
			list := orList(shells)
			if len(args) == 0 {
				return fmt.Errorf("completion needs a shell: %s (see csvidx completion --help)", list)
			}
			// No suggestion: the four names are the message, and
			// three-letter names are each near most typos.
			return fmt.Errorf("unknown shell %q: completion takes %s (see csvidx completion --help)", args[0], list)
		}
	}
}

// strictHelp makes "csvidx help TOPIC" an error when TOPIC is no command
// (cobra's prints "Unknown help topic" and the usage, with status 0).
func strictHelp(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	help, _, err := root.Find([]string{"help"})
	if err != nil || help.Name() != "help" || help.Run == nil {
		return
	}
	run := help.Run
	help.Run = nil
	help.RunE = func(cmd *cobra.Command, args []string) error {
		if _, _, err := root.Find(args); err != nil && len(args) > 0 {
			return fmt.Errorf("unknown help topic %q (see csvidx --help)", strings.Join(args, " "))
		}
		run(cmd, args)
		return nil
	}
}

// orList writes words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// rewordUnknown rewrites cobra's "unknown command" errors, which it makes
// for two reasons: a first word that names no command (suggest the
// commands it may be a typo of), and an argument to a command that takes
// none, such as completion bash (say so). Any other error is returned as
// it is.
func rewordUnknown(root *cobra.Command, err error) error {
	word, path, ok := parseUnknown(err)
	if !ok {
		return err
	}
	if path != root.Name() {
		cmd := strings.TrimPrefix(path, root.Name()+" ")
		return fmt.Errorf("%s takes no arguments, got %q (see %s --help)", cmd, word, path)
	}
	msg := fmt.Sprintf("unknown command %q", word)
	if near := suggestCommands(root, word); len(near) > 0 {
		msg += fmt.Sprintf(": did you mean %s?", strings.Join(near, " or "))
	}
	return errors.New(msg + " (see csvidx --help)")
}

// parseUnknown reads cobra's error `unknown command "WORD" for "PATH"`
// (followed, for the root, by suggestions of its own).
func parseUnknown(err error) (word, path string, ok bool) {
	rest, found := strings.CutPrefix(err.Error(), "unknown command ")
	if !found {
		return "", "", false
	}
	q, err1 := strconv.QuotedPrefix(rest)
	rest, found = strings.CutPrefix(rest[len(q):], " for ")
	if err1 != nil || !found {
		return "", "", false
	}
	p, err2 := strconv.QuotedPrefix(rest)
	if err2 != nil {
		return "", "", false
	}
	word, _ = strconv.Unquote(q)
	path, _ = strconv.Unquote(p)
	return word, path, true
}

// suggestCommands returns the commands word may be a typo of, completion
// included (which the tree holds only when the command line asks for it).
func suggestCommands(root *cobra.Command, word string) []string {
	if root.CompletionOptions.DisableDefaultCmd {
		root.CompletionOptions.DisableDefaultCmd = false
		root.InitDefaultCompletionCmd("completion")
	}
	root.SuggestionsMinimumDistance = suggestDistance
	return root.SuggestionsFor(word)
}
