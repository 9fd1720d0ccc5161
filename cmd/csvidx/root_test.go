package main

import (
	"bytes"
	"context"
	"testing"
)

// TestPrunedTree checks that the command tree holding only the command a
// command line names behaves as the whole tree: same help, same errors.
func TestPrunedTree(t *testing.T) {
	execute := func(tree, args []string) string {
		var out bytes.Buffer
		root := newRootCommand(streams{in: &bytes.Buffer{}, out: &out, err: &out}, tree)
		root.SetArgs(args)
		if err := root.ExecuteContext(context.Background()); err != nil {
			out.WriteString("error: " + err.Error())
		}
		return out.String()
	}
	for _, c := range commands {
		for _, args := range [][]string{
			{c.name, "--help"},
			{c.name, "--no-such-flag"},
			{c.name},
			{c.name, "no-such-file.csv", "key", "extra", "--index", "no-such.csvidx"},
		} {
			whole, pruned := execute(nil, args), execute(args, args)
			if whole != pruned {
				t.Errorf("%q: the whole tree says\n%s\nthe pruned one\n%s", args, whole, pruned)
			}
			if len(whole) == 0 {
				t.Errorf("%q: no output", args)
			}
		}
	}
	if got := len(newRootCommand(streams{}, []string{"get", "x"}).Commands()); got != 1 {
		t.Errorf("get's tree has %d commands, want 1", got)
	}
}
