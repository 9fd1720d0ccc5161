package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fullCase is a writer run out of room, and the state it starts from.
type fullCase struct {
	name  string
	mount string // which directory is a small tmpfs: "index", "spill" or none
	room  int64  // bytes left free on it, or the file size limit
	fsize bool   // run under prlimit --fsize=room instead of a tmpfs
	tail  bool   // the old state has a tail (what compact starts from)
	// merge: the writer is an update whose tail fits but whose merge of
	// the tail into the main index does not. The update succeeded (exit 0,
	// a warning), and the index has the new tail and the old main.
	merge bool
	args  []string // the writer, before the CSV path
}

func (w *world) cases() []fullCase {
	cs := []fullCase{
		{name: "build, file size limit", room: 256 << 10, fsize: true, args: []string{"build", "--key", "user_id"}},
		{name: "build spilling, file size limit", room: 128 << 10, fsize: true, args: []string{"build", "--key", "user_id", "--mem-limit-mib", "1"}},
		{name: "update, file size limit", room: 64 << 10, fsize: true, args: []string{"update", "--no-compact"}},
		{name: "compact, file size limit", room: 256 << 10, fsize: true, tail: true, args: []string{"compact"}},
	}
	if !w.canMount {
		fmt.Printf("tmpfs cases skipped: %s\n", w.mountSkipCause)
		return cs
	}
	return append(cs,
		fullCase{name: "build spilling, spill dir full", mount: "spill", room: 256 << 10, args: []string{"build", "--key", "user_id", "--mem-limit-mib", "1"}},
		fullCase{name: "build, index dir full", mount: "index", room: 64 << 10, args: []string{"build", "--key", "user_id"}},
		fullCase{name: "update, index dir full", mount: "index", room: 16 << 10, args: []string{"update", "--no-compact"}},
		fullCase{name: "update (compacts), index dir full", mount: "index", room: 16 << 10, args: []string{"update"}},
		fullCase{name: "update: the tail fits, its merge not", mount: "index", merge: true, args: []string{"update"}}, // room: from the index
		fullCase{name: "compact, index dir full", mount: "index", room: 64 << 10, tail: true, args: []string{"compact"}},
	)
}

// run makes the old state, runs the writer out of room, and checks what it
// left.
func (c fullCase) run(w *world) result {
	r := result{Case: c.name}
	fail := func(format string, args ...any) result {
		r.Problem = fmt.Sprintf(format, args...)
		return r
	}
	dir, err := os.MkdirTemp(w.work, "case-")
	if err != nil {
		return fail("%v", err)
	}
	csv := filepath.Join(dir, "orders.csv")
	idxDir, spill := dir, filepath.Join(dir, "spill")
	if err := os.MkdirAll(spill, 0o755); err != nil {
		return fail("%v", err)
	}
	if c.mount == "index" {
		idxDir = filepath.Join(dir, "idx")
		if err := w.mount(idxDir, 256<<20); err != nil {
			return fail("%v", err)
		}
	}
	idx := filepath.Join(idxDir, "orders.csv.csvidx")

	// The old state: an index of the first 80% of the rows (and, for
	// compact, a tail over the rest); then the CSV grows.
	if err := os.WriteFile(csv, w.full[:w.cut], 0o644); err != nil {
		return fail("%v", err)
	}
	if out, _, err := exitStatus(w.bin, "build", csv, "--key", "user_id", "--index", idx); err != nil || out != 0 {
		return fail("the old build: exit %d, %v", out, err)
	}
	if err := os.WriteFile(csv, w.full, 0o644); err != nil {
		return fail("%v", err)
	}
	if c.tail {
		if out, _, err := exitStatus(w.bin, "update", "--no-compact", csv, "--index", idx); err != nil || out != 0 {
			return fail("the old update: exit %d, %v", out, err)
		}
	}
	if c.merge {
		// Room for the tail, in format 1 (16 bytes per row; the CSV grew by
		// a quarter of the rows the main index has) and half the main
		// index, but not for a merged main index (in format 2, the main
		// index and a quarter more) beside it.
		hdr, err := os.ReadFile(idx)
		if err != nil || len(hdr) < 96 {
			return fail("read %s: %v", idx, err)
		}
		rows := int64(binary.LittleEndian.Uint64(hdr[88:])) // the header's rows (format/format.go)
		tail := ((rows/4+254)/255 + 1) * 4096
		c.room = tail + int64(len(hdr))/2
	}
	full := idxDir
	switch c.mount {
	case "index":
		r.Room = fmt.Sprintf("index dir, %d KiB free", c.room>>10)
		err = w.shrink(idxDir, c.room)
	case "spill":
		r.Room = fmt.Sprintf("spill dir, %d KiB", c.room>>10)
		full = spill
		err = w.mount(spill, c.room)
	default:
		r.Room = fmt.Sprintf("files, %d KiB at most", c.room>>10)
	}
	if err != nil {
		return fail("%v", err)
	}
	before, err := snapshot(idxDir)
	if err != nil {
		return fail("%v", err)
	}

	args := append(append([]string{}, c.args...), csv, "--index", idx)
	if c.args[0] != "compact" { // compact needs no spill files
		args = append(args, "--tmp-dir", spill)
	}
	name := w.bin
	if c.fsize {
		args = append([]string{"--fsize=" + strconv.FormatInt(c.room, 10), w.bin}, args...)
		name = "prlimit"
	}
	r.Exit, r.Message, err = exitStatus(name, args...)
	if err != nil {
		return fail("%v", err)
	}
	r.TempLeft = tempFiles(idxDir, spill)
	if c.merge { // only the tail may be new
		if _, err := os.Stat(idx + ".tail"); err != nil {
			return fail("no tail: %v", err)
		}
		delete(before, "orders.csv.csvidx.tail")
	}
	diff := sameFiles(idxDir, before, c.merge)
	r.Intact = diff == ""
	want, status := "no space left in "+full, 2
	if c.fsize {
		want = "file size limit reached"
	}
	if c.merge {
		status = 0
	}
	msg := r.Message
	if c.merge { // update reports the tail it wrote before it warns about the merge
		report, rest, _ := strings.Cut(msg, "\n")
		if !strings.HasPrefix(report, "csvidx: indexed ") {
			return fail("no report of the tail before the warning")
		}
		msg = rest
	}
	switch {
	case r.Exit != status:
		return fail("exit status %d, want %d", r.Exit, status)
	case strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "csvidx: "):
		return fail("not a one-line csvidx error")
	case !strings.Contains(r.Message, want):
		return fail("the error does not say %q", want)
	case !r.Intact:
		return fail("the old index: %s", diff)
	case r.TempLeft > 0:
		return fail("%d temporary files left", r.TempLeft)
	}
	if out, stderr, err := exitStatus(w.bin, "verify", csv, "--index", idx); err != nil || out != 0 {
		return fail("verify of the old index: exit %d, %v %s", out, err, stderr)
	}
	return r
}
