package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// prefixShare is the part of the CSV's bytes that each round's build of
// the appends indexes, cut at the next line end; the rest is appended.
const prefixShare = 0.8

// appendDir is the directory of the side's own copy of the CSV, which the
// appends cut, index and grow, under the CSV's base name (so that both
// binaries print the same name).
func (sd *side) appendDir() string { return filepath.Join(sd.dir, "append") }

// An appendStep is one of the commands timed on a grown copy, in a side's
// appendDir: its arguments, the files read through before it, and the
// files it writes, which are hashed. A step with output keeps what the
// command printed and its exit status as checks; the others must exit 0.
type appendStep struct {
	label  string
	args   []string
	warm   []string
	files  []string
	output bool
}

// ran is what inDir saw of a command.
type ran struct {
	seconds float64
	out     string // standard output, then standard error after a line saying so
	status  int    // the exit status
}

// inDir runs name with args in dir, timed, and returns what it printed and
// its exit status; err is only for a command that could not run.
func inDir(dir, name string, args ...string) (ran, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := ran{seconds: time.Since(start).Seconds(), out: out.String()}
	if errb.Len() > 0 {
		r.out += "[standard error]\n" + errb.String()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.status, err = ee.ExitCode(), nil
	}
	return r, err
}

// mustSucceed runs name with args in dir, as inDir, and fails unless it
// exits 0.
func mustSucceed(dir, name string, args ...string) (ran, error) {
	r, err := inDir(dir, name, args...)
	if err == nil && r.status != 0 {
		err = fmt.Errorf("in %s: %s %v: exit status %d\n%s", dir, name, args, r.status, r.out)
	}
	return r, err
}

// timeAppends times update --no-compact, compact and verify of each
// binary, rounds times in turns, each round on the binary's own copy of
// the CSV: cut to its first prefixShare at a line end, indexed by user_id
// (untimed), then completed with the rest of the rows. The tail, the
// compacted index and its fence must be the same bytes for both binaries,
// and verify must print the same and exit 0. Last, a key byte in the middle
// of each copy is changed in place: verify must then print the same and
// exit 1 for both.
func timeAppends(res *results, sides [2]*side, rounds int) error {
	st, err := os.Stat(res.CSV)
	if err != nil {
		return err
	}
	f, err := os.Open(res.CSV)
	if err != nil {
		return err
	}
	prefix, err := lineEndAfter(f, st.Size(), int64(float64(st.Size())*prefixShare))
	f.Close()
	if err != nil {
		return fmt.Errorf("cutting %s: %w", res.CSV, err)
	}
	res.PrefixBytes = prefix
	name := filepath.Base(res.CSV)
	idx := name + ".csvidx"
	steps := []appendStep{
		{label: "update --no-compact", args: []string{"update", name, "--index", idx, "--no-compact", "-q"}, warm: []string{name, idx, idx + ".fence"}, files: []string{idx + ".tail"}},
		{label: "compact", args: []string{"compact", name, "--index", idx, "-q"}, warm: []string{idx, idx + ".tail"}, files: []string{idx, idx + ".fence"}},
		{label: "verify after compact", args: []string{"verify", name, "--index", idx}, warm: []string{name, idx, idx + ".fence"}, output: true},
	}
	n := max(1, rounds)
	ms := []*measure{
		{Name: fmt.Sprintf("update --no-compact, %d bytes appended (%.0f%%), median of %d", st.Size()-prefix, 100*float64(st.Size()-prefix)/float64(st.Size()), n), Unit: "s", Target: 1.03},
		{Name: fmt.Sprintf("compact, the tail into the main index, median of %d", n), Unit: "s", Target: 1.03},
		{Name: fmt.Sprintf("verify after compact, median of %d", n), Unit: "s", Target: 1.03},
	}
	res.Measures = append(res.Measures, ms...)
	for _, sd := range sides {
		if err := os.MkdirAll(sd.appendDir(), 0o755); err != nil {
			return err
		}
	}
	first := make([][2]map[string]string, len(steps)) // the first round's SHA-256 by file name (and a step's output and exit status), by step and side
	texts := make([][2]string, len(steps))            // the first round's output, by step and side
	for round := range n {
		// In turns, as run.Turns takes them: every second round the other
		// binary goes first, at each step.
		order := [2]int{0, 1}
		if round%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, j := range order {
			if err := growCopy(res.CSV, sides[j], name, prefix, round == 0); err != nil {
				return fmt.Errorf("%s binary, round %d: %w", sides[j].Name, round+1, err)
			}
		}
		for s, step := range steps {
			for _, j := range order {
				sd := sides[j]
				dir := sd.appendDir()
				if err := run.Warm(inside(dir, step.warm)...); err != nil {
					return err
				}
				r, err := inDir(dir, sd.Bin, step.args...)
				if err == nil && !step.output && r.status != 0 {
					err = fmt.Errorf("exit status %d\n%s", r.status, r.out)
				}
				if err != nil {
					return fmt.Errorf("%s binary, %s: %w", sd.Name, step.label, err)
				}
				ms[s].add(j, r.seconds)
				fmt.Fprintf(os.Stderr, "round %d, %s binary, %s: %.3f s\n", round+1, sd.Name, step.label, r.seconds)
				sums := map[string]string{}
				for _, p := range step.files {
					if sums[p], err = run.SHA256(filepath.Join(dir, p)); err != nil {
						return err
					}
				}
				if step.output {
					sums["output"], sums["exit status"] = sha(r.out), strconv.Itoa(r.status)
				}
				if round == 0 {
					first[s][j], texts[s][j] = sums, r.out
				} else if diff := differing(first[s][j], sums); len(diff) > 0 {
					res.Unsteady = append(res.Unsteady, fmt.Sprintf("the %s binary's %s wrote or printed other bytes in round %d than in the first: %v", sd.Name, step.label, round+1, diff))
				}
			}
		}
	}
	for s, step := range steps {
		old, nw := first[s][0], first[s][1]
		for _, p := range step.files {
			res.Bytes = append(res.Bytes, check{What: step.label + ": " + p, Old: old[p], New: nw[p]})
		}
		if step.output {
			res.Bytes = append(res.Bytes,
				check{What: step.label + ": output", Old: old["output"], New: nw["output"], OldText: texts[s][0], NewText: texts[s][1]},
				check{What: step.label + ": exit status", Old: old["exit status"], New: nw["exit status"], Want: "0"})
		}
	}
	return verifyChanged(res, sides, name, idx)
}

// verifyChanged changes one byte of a key in the middle of each side's
// grown copy, in place, and runs verify on it (untimed): both binaries
// must print the same, and exit 1.
func verifyChanged(res *results, sides [2]*side, name, idx string) error {
	off, b, err := keyByte(res.CSV, "user_id")
	if err != nil {
		return err
	}
	res.ChangedByte = off
	var outs [2]ran
	for j, sd := range sides {
		if err := changeByte(filepath.Join(sd.appendDir(), name), off, b, b^1); err != nil {
			return fmt.Errorf("%s binary's copy: %w", sd.Name, err)
		}
		if outs[j], err = inDir(sd.appendDir(), sd.Bin, "verify", name, "--index", idx); err != nil {
			return fmt.Errorf("%s binary, verify of a changed copy: %w", sd.Name, err)
		}
	}
	label := fmt.Sprintf("verify, key byte %d changed", off)
	res.Bytes = append(res.Bytes,
		check{What: label + ": output", Old: sha(outs[0].out), New: sha(outs[1].out), OldText: outs[0].out, NewText: outs[1].out},
		check{What: label + ": exit status", Old: strconv.Itoa(outs[0].status), New: strconv.Itoa(outs[1].status), Want: "1"})
	return nil
}

// growCopy makes name in sd's appendDir the first prefix bytes of csv
// (copied when fresh, else the copy cut back to them), indexes it with
// sd's binary by user_id, from scratch, and appends the rest of csv,
// synced: the copy is then csv again, and its index stops at prefix.
func growCopy(csv string, sd *side, name string, prefix int64, fresh bool) error {
	dir := sd.appendDir()
	cp := filepath.Join(dir, name)
	if fresh {
		if err := copyRange(csv, cp, 0, prefix, os.O_TRUNC); err != nil {
			return err
		}
	} else if err := os.Truncate(cp, prefix); err != nil {
		return err
	}
	idx := name + ".csvidx"
	if err := run.RemoveIndex(filepath.Join(dir, idx)); err != nil {
		return err
	}
	if _, err := mustSucceed(dir, sd.Bin, "build", name, "--key", "user_id", "--index", idx, "-q"); err != nil {
		return err
	}
	return copyRange(csv, cp, prefix, -1, os.O_APPEND)
}

// copyRange writes n bytes of src from off (to its end when n < 0) to
// dst, created when missing, opened with flag (os.O_TRUNC or
// os.O_APPEND), and syncs dst: the timed commands then find no dirty pages
// of it to write back.
func copyRange(src, dst string, off, n int64, flag int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|flag, 0o644)
	if err != nil {
		return err
	}
	var r io.Reader = io.NewSectionReader(in, off, 1<<62)
	if n >= 0 {
		r = io.NewSectionReader(in, off, n)
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// lineEndAfter returns the offset just past the first newline at or after
// at in the size bytes of r: a cut that ends a line. The cut must leave
// bytes after it.
func lineEndAfter(r io.ReaderAt, size, at int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for off := at; off < size; off += int64(len(buf)) {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			if end := off + int64(i) + 1; end < size {
				return end, nil
			}
			break
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
	}
	return 0, fmt.Errorf("no line ends at or after byte %d of %d with bytes after it", at, size)
}

// keyByte returns the offset in csv of a byte of the column key (a header
// name, comma-separated) in a row near the middle of the file, and the
// byte: the last byte of the key of the first whole row after the middle
// whose fields up to the key hold no quote.
func keyByte(csv, key string) (int64, byte, error) {
	f, err := os.Open(csv)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	head := make([]byte, 64<<10)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return 0, 0, err
	}
	mid := st.Size() / 2
	window := make([]byte, 64<<10)
	m, err := f.ReadAt(window, mid)
	if err != nil && err != io.EOF {
		return 0, 0, err
	}
	i, err := keyByteAt(head[:n], window[:m], key)
	if err != nil {
		return 0, 0, fmt.Errorf("%s near byte %d: %w", csv, mid, err)
	}
	return mid + int64(i), window[i], nil
}

// keyByteAt returns the index in window (bytes from the middle of a
// comma-separated file whose first line, in head, is the header) of the
// last byte of the column key in the first whole line of window whose
// fields up to the key hold no quote and whose key is not empty, and
// whose last byte, its lowest bit flipped, is neither a delimiter, a quote
// nor a line end. Digits stay digits.
func keyByteAt(head, window []byte, key string) (int, error) {
	header, _, ok := bytes.Cut(head, []byte("\n"))
	if !ok {
		return 0, errors.New("no header line")
	}
	col := -1
	for i, f := range bytes.Split(bytes.TrimSuffix(header, []byte("\r")), []byte(",")) {
		if string(f) == key {
			col = i
			break
		}
	}
	if col < 0 {
		return 0, fmt.Errorf("no column %q in the header %q", key, header)
	}
	start := bytes.IndexByte(window, '\n') + 1
	if start == 0 {
		return 0, errors.New("no line end")
	}
	for {
		end := bytes.IndexByte(window[start:], '\n')
		if end < 0 {
			return 0, fmt.Errorf("no whole line with a plain key %q", key)
		}
		line := bytes.TrimSuffix(window[start:start+end], []byte("\r"))
		if i := lastKeyByte(line, col); i >= 0 {
			return start + i, nil
		}
		start += end + 1
	}
}

// lastKeyByte returns the index in line of the last byte of field col, or
// -1 where the line has no such field, the field is empty, a quote comes
// before its end, or its last byte, its lowest bit flipped, would be a
// delimiter, a quote or a line end.
func lastKeyByte(line []byte, col int) int {
	from := 0 // where field col starts
	for range col {
		i := bytes.IndexByte(line[from:], ',')
		if i < 0 {
			return -1
		}
		from += i + 1
	}
	to := len(line)
	if i := bytes.IndexByte(line[from:], ','); i >= 0 {
		to = from + i
	}
	if to == from || bytes.IndexByte(line[:to], '"') >= 0 || bytes.IndexByte([]byte(",\"\r\n"), line[to-1]^1) >= 0 {
		return -1
	}
	return to - 1
}

// changeByte sets the byte at off of the file at path, in place, to to,
// after checking that it is from.
func changeByte(path string, off int64, from, to byte) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	if b[0] != from {
		return fmt.Errorf("byte %d of %s is %q, not %q as in the CSV", off, path, b[0], from)
	}
	if _, err := f.WriteAt([]byte{to}, off); err != nil {
		return err
	}
	return f.Close()
}

// inside returns the names joined to dir.
func inside(dir string, names []string) []string {
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
	}
	return paths
}

// sha returns the hex SHA-256 of s.
func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
