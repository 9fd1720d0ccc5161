package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/source"
	"github.com/spf13/cobra"
)

// Exit statuses, as grep's.
const (
	exitMatch       = 0   // something matched, or the command succeeded
	exitNoMatch     = 1   // nothing matched, or verify found a difference
	exitError       = 2   // anything went wrong
	exitInterrupted = 130 // stopped by Ctrl-C or SIGTERM, as a shell reports it
)

// errNoMatch is returned by commands whose answer is "no": get found no
// row, verify found a difference. It exits with status 1 and prints nothing.
var errNoMatch = errors.New("no match")

// streams are the command's standard files.
type streams struct {
	in         io.Reader
	out, err   io.Writer
	stdinTaken *bool // set once a command has taken in to read (see stdin)
}

// stdin returns standard input for a command to read, noting that it did:
// the default build runs another build in its place only before (see
// runHelper).
func (s streams) stdin() io.Reader {
	if s.stdinTaken != nil {
		*s.stdinTaken = true
	}
	return s.in
}

// globals are the flags every command takes.
type globals struct {
	indexPath string
	by        string // the key spec of the index to use, among the file's
	indexDir  string // where the indexes live, if not next to the CSV: see several.go
}

func (g *globals) options() *index.Options {
	return &index.Options{IndexPath: g.indexPath, By: g.by, IndexDir: g.indexDir}
}

// remoteIndex reports whether the index of the CSV at csvPath is at a URL:
// the CSV is at one (see source.Remote), and neither --index names a
// local file nor --index-dir a directory, where its indexes are kept
// instead (read and written as a local CSV's are, the CSV read through
// its URL).
func (g *globals) remoteIndex(csvPath string) bool {
	return source.Remote(csvPath) && g.indexDir == "" && (g.indexPath == "" || source.Remote(g.indexPath))
}

// cleanupAnnotation marks the commands that write files: Ctrl-C and SIGTERM
// cancel their context, so that they remove their temporary files and
// exit 130, instead of killing the process. The others only read, and
// keep the default (the shell reports 130 all the same): catching signals
// makes the Go runtime start a thread to receive them, which cost a
// lookup 0.8 ms, a fifth of the whole process.
const cleanupAnnotation = "cleanup"

// cleansUp marks cmd as a command that writes files.
func cleansUp(cmd *cobra.Command) *cobra.Command {
	cmd.Annotations = map[string]string{cleanupAnnotation: "yes"}
	return cmd
}

// run executes the command line args and returns the exit status. It is
// main without the process: tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stop := func() {}
	defer func() { stop() }()
	out := &stdoutWriter{w: stdout}
	given := slices.Clone(args) // for another build run in this one's place, as they came
	args = keyArgs(args)
	stdinTaken := false
	s := streams{in: stdin, out: out, err: stderr, stdinTaken: &stdinTaken}
	root := newRootCommand(s, args)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := remoteArgs(cmd, args); err != nil {
			return err // a URL: the remote build runs in this one's place, before any work
		}
		keysFile := cmd.Flags().Lookup("keys-file")
		prime := cmd.Annotations[cleanupAnnotation] != "" || keysFile != nil && keysFile.Value.String() != "" && keysFile.Value.String() != "-"
		if err := checkDescriptors(prime); err != nil {
			return err
		}
		if in, by := cmd.Flags().Lookup("index"), cmd.Flags().Lookup("by"); in != nil && by != nil && in.Changed && by.Changed {
			return errIndexAndBy
		}
		if cmd.Annotations[cleanupAnnotation] == "" {
			return nil
		}
		ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		stop = cancel
		go func() {
			<-ctx.Done()
			cancel() // a second Ctrl-C kills at once
		}()
		cmd.SetContext(ctx)
		return nil
	}
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		err = rewordUnknown(root, err)
	}
	if ferr := out.failed(); ferr != nil && !errors.Is(err, context.Canceled) {
		err = ferr // the report was lost: that is the error, whatever the command made of it
	}
	switch {
	case err == nil:
		return exitMatch
	case errors.Is(err, errNoMatch):
		return exitNoMatch
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "csvidx: interrupted")
		return exitInterrupted
	}
	stop() // before another build may replace this process
	status, err := runHelper(err, given, s)
	if status >= 0 {
		return status
	}
	if out.failed() == nil {
		err = explainDiskFull(err, "the index is as it was before this command")
	}
	fmt.Fprintf(stderr, "csvidx: %s\n", oneLine(advise(err)))
	return exitError
}

// commands are csvidx's commands, in the order help lists them.
var commands = []struct {
	name   string // the first word of its Use
	new    func(*globals, streams) *cobra.Command
	writes bool // it writes files: see cleansUp
}{
	{"build", newBuildCommand, true},
	{"get", newGetCommand, false},
	{"join", newJoinCommand, false},
	{"info", newInfoCommand, false},
	{"verify", newVerifyCommand, true},
	{"update", newUpdateCommand, true},
	{"compact", newCompactCommand, true},
	{"drop", newDropCommand, true},
	{"compress", newCompressCommand, true},
	{"bench", newBenchCommand, false},
	{"plan", newPlanCommand, true},
	{"map", newMapCommand, true},
	{"reduce", newReduceCommand, true},
	{"commit", newCommitCommand, true},
}

// newRootCommand returns the command tree for the command line args. When
// args name a command first, as they mostly do, the tree holds only that
// command: cobra would run it all the same, and building the whole tree
// with its flags took about 7% of a lookup process's perf samples. Any
// other command line (help, a global flag first, a typo to suggest a fix
// for) gets the whole tree.
func newRootCommand(s streams, args []string) *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "csvidx",
		Short: "Find the rows of one key in a huge CSV file, in about a millisecond",
		Long: `csvidx indexes a CSV file by a column (or several), without importing it:
the CSV stays as it is and FILE.csvidx, next to it, maps key hashes to row
offsets. A lookup reads a page of the index and then only the rows it needs.
csvidx join looks up each row of a CSV stream in an indexed CSV.`,
		Example: `  csvidx build orders.csv --key user_id
  csvidx get orders.csv 8841207
  csvidx get orders.csv --header 17 42 | head
  csvidx update orders.csv        # after rows were appended
  csvidx info orders.csv
  csvidx join --semi orders.csv vips.csv --key user_id`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.PersistentFlags().StringVar(&g.indexPath, "index", "", "index file `PATH` (default FILE.csvidx)")
	root.PersistentFlags().StringVar(&g.by, "by", "", "use the file's index by `COLUMNS` (as build's --key names them), when it has several")
	addIndexDirFlag(root, g)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c.Name() == "get" && strings.HasPrefix(err.Error(), "unknown") {
			return fmt.Errorf("%w (a key that begins with - goes after --: csvidx get FILE -- -KEY; see csvidx get --help)", err)
		}
		return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
	})
	only := ""
	for _, c := range commands {
		if len(args) > 0 && args[0] == c.name {
			only = c.name
		}
	}
	// Completion scripts (cobra's): the script asks csvidx __complete
	// ARGS... for the words that fit, which gets the whole tree below. The
	// whole tree holds the completion command, so that help lists it.
	root.CompletionOptions.DisableDefaultCmd = only != ""
	for _, c := range commands {
		if only != "" && c.name != only {
			continue
		}
		cmd := c.new(g, s)
		if c.writes {
			cmd = cleansUp(cmd)
		}
		root.AddCommand(cmd)
	}
	if !root.CompletionOptions.DisableDefaultCmd {
		strictCompletion(root, args)
	}
	if len(args) > 0 && args[0] == "help" {
		strictHelp(root)
	}
	if len(args) > 0 && args[0] == treeCommand {
		root.AddCommand(newTreeCommand(root, s))
	}
	if only == "" {
		root.Version = version()
		root.SetVersionTemplate("csvidx {{.Version}}\n")
	}
	return root
}

// version returns the module version and the VCS revision csvidx was built
// from, as the Go toolchain recorded them in the binary.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := bi.Main.Version
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf(" (revision %.12s, %s%s)", rev, at, dirty)
	}
	v += ", " + bi.GoVersion
	switch {
	case remoteBuild:
		v += ", remote build (reads http, https and s3 URLs, gzip and zstd)"
	case codecsBuild:
		v += ", codecs build (reads gzip and zstd)"
	}
	return v
}
