package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
)

// TestRebuildError: every way an index can need building again is a
// *RebuildError that names the CSV and the file at fault, says what the
// index was built with when its header is readable, keeps its sentinel for
// errors.Is, and words the fix neutrally: no command line of the CLI.
func TestRebuildError(t *testing.T) {
	byName := &Definition{KeyColumn: 1, KeyName: "user", Delimiter: ','}
	for _, tc := range []struct {
		name   string
		csv    string
		opts   *BuildOptions
		breaks func(t *testing.T, csvPath, idxPath string)
		is     error
		built  *Definition
		tail   bool   // the file at fault is the tail
		update bool   // an update repairs it
		facts  string // the start of Facts(), after the CSV's directory
		fix    string // what Error() adds to Facts()
	}{
		{name: "Missing", csv: "id,user\n1,u1\n", opts: &BuildOptions{Key: "user"},
			breaks: func(t *testing.T, _, idx string) { os.Remove(idx) },
			is:     ErrNoIndex, facts: "no index for ", fix: "; build the index"},
		{name: "NotAnIndex", csv: "id,user\n1,u1\n", opts: &BuildOptions{Key: "user"},
			breaks: func(t *testing.T, _, idx string) { os.WriteFile(idx, make([]byte, 2*format.PageSize), 0o644) },
			is:     ErrNotIndex, facts: "t.csv.csvidx: not a csvidx index", fix: "; rebuild the index"},
		{name: "HeaderChecksum", csv: "id,user\n1,u1\n", opts: &BuildOptions{Key: "user"},
			breaks: func(t *testing.T, _, idx string) { editAt(t, idx, 50, 0xff) },
			is:     ErrCorrupt, facts: "t.csv.csvidx: corrupt: header checksum mismatch", fix: "; rebuild the index"},
		{name: "WrongSize", csv: "id,user\n1,u1\n", opts: &BuildOptions{Key: "user"},
			breaks: func(t *testing.T, _, idx string) { os.Truncate(idx, format.PageSize+100) },
			is:     ErrCorrupt, built: byName, facts: "t.csv.csvidx: corrupt: the file is 4196 bytes", fix: "; rebuild the index"},
		{name: "Shrunk", csv: "id,user\n1,u1\n", opts: &BuildOptions{Key: "user"},
			breaks: func(t *testing.T, csv, _ string) { os.Truncate(csv, 10) },
			is:     ErrStale, built: byName, facts: "t.csv.csvidx is stale: ", fix: "; rebuild the index"},
		{name: "ShrunkNoHeaderTab", csv: "1\tu1\n2\tu2\n", opts: &BuildOptions{Key: "1", NoHeader: true, Delimiter: '\t'},
			breaks: func(t *testing.T, csv, _ string) { os.Truncate(csv, 5) },
			is:     ErrStale, built: &Definition{KeyColumn: 1, NoHeader: true, Delimiter: '\t'},
			facts: "t.csv.csvidx is stale: ", fix: "; rebuild the index"},
		{name: "StaleTail", csv: "id,user\n1,u1\n", opts: &BuildOptions{Key: "user"},
			breaks: func(t *testing.T, csv, _ string) {
				appendCSV(t, csv, "2,u2\n")
				runUpdate(t, csv, &UpdateOptions{NoCompact: true})
				editAt(t, csv, int64(len("id,user\n1,u1\n2,")), 'x') // in the rows only the tail indexes
			},
			is: ErrStale, built: byName, tail: true, update: true, facts: "t.csv.csvidx.tail is stale: ",
			fix: "; rebuild the index (the tail indexes rows appended after the main index; an update rescans them)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csv := writeCSV(t, tc.csv)
			build(t, csv, tc.opts)
			idx := DefaultIndexPath(csv)
			tc.breaks(t, csv, idx)
			_, err := Open(csv, nil)
			var e *RebuildError
			if !errors.As(err, &e) || !errors.Is(err, tc.is) {
				t.Fatalf("Open = %v (%T), want a *RebuildError wrapping %v", err, err, tc.is)
			}
			want := idx
			if tc.tail {
				want = tailPath(idx)
			}
			if e.CSVPath != csv || e.IndexPath != want || e.Update != tc.update {
				t.Errorf("CSVPath %q, IndexPath %q, Update %v; want %q, %q, %v", e.CSVPath, e.IndexPath, e.Update, csv, want, tc.update)
			}
			if !reflect.DeepEqual(e.Built, tc.built) {
				t.Errorf("Built = %+v, want %+v", e.Built, tc.built)
			}
			facts := strings.TrimPrefix(e.Facts(), strings.TrimSuffix(csv, "t.csv"))
			if !strings.HasPrefix(facts, tc.facts) || strings.Contains(facts, ";") {
				t.Errorf("Facts() = %q, want it to start with %q and say no fix", e.Facts(), tc.facts)
			}
			if got := err.Error(); got != e.Facts()+tc.fix || strings.Contains(got, "csvidx build") {
				t.Errorf("Error() = %q, want the facts and %q", got, tc.fix)
			}
		})
	}
}

// TestRebuildErrorWrapped: where a RebuildError is wrapped, it stays in
// the chain, so that a front end can still word its fix: in ReadInfo's
// Stale, and in Check's ErrChanged once the CSV changed under an open index.
func TestRebuildErrorWrapped(t *testing.T) {
	csv := writeCSV(t, "id,user\n1,u1\n2,u2\n")
	build(t, csv, &BuildOptions{Key: "user"})
	ix, err := Open(csv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	editAt(t, csv, 3, 'X')
	appendCSV(t, csv, "3,u3\n") // grown, so that Check compares the indexed bytes
	err = ix.Check()
	var e *RebuildError
	if !errors.Is(err, ErrChanged) || !errors.As(err, &e) || !strings.Contains(err.Error(), e.Error()) {
		t.Errorf("Check = %v, want ErrChanged wrapping a *RebuildError", err)
	}
	info, err := ReadInfo(csv, nil)
	if err != nil || info.StaleError == nil || info.Stale != info.StaleError.Error() || !errors.Is(info.StaleError, ErrStale) {
		t.Fatalf("ReadInfo = %+v, %v; want Stale to be StaleError's message", info, err)
	}
}

// TestLockedError: a writer told not to wait, finding the lock taken, gets
// a *LockedError that names the lock file and unwraps to ErrLocked, with
// no flag of the CLI in its message.
func TestLockedError(t *testing.T) {
	csv := writeCSV(t, "id,user\n1,u1\n")
	build(t, csv, &BuildOptions{Key: "user"})
	lock, err := lockIndex(csv, DefaultIndexPath(csv), false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.unlock()
	_, err = Update(context.Background(), csv, &UpdateOptions{NoWait: true})
	var e *LockedError
	if !errors.As(err, &e) || !errors.Is(err, ErrLocked) || e.Lock != lockPath(DefaultIndexPath(csv)) {
		t.Fatalf("Update = %v (%T), want a *LockedError for the lock file", err, err)
	}
	want := "another csvidx is writing this index (" + e.Lock + " is locked)"
	if e.Facts() != want || err.Error() != want+"; try again when it is done" {
		t.Errorf("Facts() = %q, Error() = %q; want %q and a neutral fix", e.Facts(), err.Error(), want)
	}
}

// TestErrorsNameTheFile: an entry point's error names the CSV when nothing
// else in it names the CSV or the index, and never twice; a cancellation
// is left as it is.
func TestErrorsNameTheFile(t *testing.T) {
	csv := writeCSV(t, "k,v\n1,a\n2,b\n")
	nowhere := filepath.Join(t.TempDir(), "nowhere")
	_, err := Build(context.Background(), csv, &BuildOptions{Key: "k", Resources: Resources{MemLimit: 1, TmpDir: nowhere}})
	if err == nil || !strings.HasPrefix(err.Error(), csv+": ") || strings.Count(err.Error(), csv) != 1 {
		t.Errorf("a build that cannot spill: %v; want the CSV's path once, first", err)
	}
	_, err = Build(context.Background(), csv, &BuildOptions{Key: "nope"})
	if !errors.Is(err, ErrColumn) || strings.Count(err.Error(), csv) != 1 {
		t.Errorf("a build with a bad key: %v; want ErrColumn, with the CSV's path once", err)
	}
	_, err = Open(csv, &Options{IndexPath: filepath.Join(t.TempDir(), "absent.csvidx")})
	if !errors.Is(err, ErrNoIndex) || strings.Count(err.Error(), csv) != 1 {
		t.Errorf("opening a missing index: %v; want ErrNoIndex, with the CSV's path once", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = Build(ctx, csv, &BuildOptions{Key: "k"}); err != context.Canceled {
		t.Errorf("a cancelled build: %v; want context.Canceled itself", err)
	}
}

// TestReword: a front end's words replace the package's neutral fixes where
// they stand in a wrapped error's message, and nothing else.
func TestReword(t *testing.T) {
	re := &RebuildError{CSVPath: "a.csv", IndexPath: "a.csv.csvidx", Err: fmt.Errorf("a.csv.csvidx is %w", ErrCorrupt)}
	le := &LockedError{Lock: "a.csv.csvidx.lock"}
	rebuild := func(e *RebuildError) string { return e.Facts() + "; REBUILD" }
	locked := func(e *LockedError) string { return e.Facts() + "; WAIT" }
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("open: %w", re), "open: a.csv.csvidx is corrupt; REBUILD"},
		{fmt.Errorf("update: %w", le), "update: " + le.Facts() + "; WAIT"},
		{errors.New("plain"), "plain"},
	} {
		if got := Reword(c.err, rebuild, locked); got != c.want {
			t.Errorf("Reword(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
