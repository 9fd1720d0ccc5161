package join

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/index"
)

// TestCheckOutput: an output that is LEFT (a file), RIGHT or one of the
// files of RIGHT's index, through a hard link or a symbolic link too, is
// an *OutputIsInputError that wraps ErrOutputIsInput and says which input
// it is; another file, a directory, a device and no output at all are not.
func TestCheckOutput(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n2,b\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	// A tail file: rows appended and indexed by an update.
	f, err := os.OpenFile(rp, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("3,c\n")
	f.Close()
	if _, err := index.Update(context.Background(), rp, &index.UpdateOptions{NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lp := filepath.Join(dir, "left.csv")
	if err := os.WriteFile(lp, []byte("k\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	left, err := os.Open(lp)
	if err != nil {
		t.Fatal(err)
	}
	defer left.Close()
	j, err := New(left, rp, &Options{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()

	ip := rp + ".csvidx"
	inputs := []struct{ path, what string }{
		{lp, "the left file"},
		{rp, rp + ", the right file"},
		{ip, ip + ", the right file's index"},
		{ip + ".tail", ip + ".tail, the right file's tail file"},
		{ip + ".fence", ip + ".fence, the right file's fence file"},
		{ip + ".lock", ip + ".lock, the right file's lock file"},
	}
	for i, in := range inputs {
		hard := filepath.Join(dir, "hard"+string(rune('a'+i)))
		if err := os.Link(in.path, hard); err != nil {
			t.Fatal(err)
		}
		soft := filepath.Join(dir, "soft"+string(rune('a'+i)))
		if err := os.Symlink(in.path, soft); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		for _, p := range []string{in.path, hard, soft} {
			st, err := os.Stat(p) // as the output's Stat sees it: through the link
			if err != nil {
				t.Fatal(err)
			}
			err = j.CheckOutput(st)
			var e *OutputIsInputError
			if !errors.As(err, &e) || !errors.Is(err, ErrOutputIsInput) || e.What != in.what {
				t.Errorf("CheckOutput(%s) = %v, want an *OutputIsInputError for %q", p, err, in.what)
				continue
			}
			if want := "the output is " + in.what + ", an input of the join"; err.Error() != want {
				t.Errorf("CheckOutput(%s): %q, want %q", p, err.Error(), want)
			}
		}
	}

	// Not inputs: another file (a copy of LEFT), a directory, a device, none.
	other := filepath.Join(dir, "copy.csv")
	if err := os.WriteFile(other, []byte("k\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{other, dir, filepath.Dir(rp), os.DevNull} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.CheckOutput(st); err != nil {
			t.Errorf("CheckOutput(%s) = %v, want nil", p, err)
		}
	}
	if err := j.CheckOutput(nil); err != nil {
		t.Errorf("CheckOutput(nil) = %v, want nil", err)
	}

	// The join still runs, and its output is right.
	var out strings.Builder
	if _, err := j.Run(context.Background(), &out); err != nil || out.String() != "k,k,v\n2,2,b\n" {
		t.Fatalf("Run after CheckOutput: %q, %v", out.String(), err)
	}
}

// TestCheckOutputLeftNotFile: a LEFT that is no file (a reader) is never
// the output; RIGHT still is.
func TestCheckOutputLeftNotFile(t *testing.T) {
	rp := writeCSV(t, "k,v\n1,a\n")
	build(t, rp, &index.BuildOptions{Key: "k"})
	lp := filepath.Join(t.TempDir(), "left.csv")
	if err := os.WriteFile(lp, []byte("k\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := New(strings.NewReader("k\n1\n"), rp, &Options{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	st, err := os.Stat(lp)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.CheckOutput(st); err != nil {
		t.Errorf("CheckOutput(a file that LEFT, a reader, is not) = %v, want nil", err)
	}
	if st, err = os.Stat(rp); err != nil {
		t.Fatal(err)
	}
	if err := j.CheckOutput(st); !errors.Is(err, ErrOutputIsInput) {
		t.Errorf("CheckOutput(RIGHT) = %v, want ErrOutputIsInput", err)
	}
}
