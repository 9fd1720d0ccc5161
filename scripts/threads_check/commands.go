package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// timeVerify times csvidx verify of the index at idx, built from csv, at
// each thread count, rounds times in turns, and prints the table. Every
// verify must find the index equal to a fresh build (exit status 0).
func timeVerify(bin, csv, idx, work string, counts []int, rounds, limit int) []timing {
	runs := make([]timing, len(counts))
	check(run.Turns(rounds, len(counts), func(_, i int) error {
		if err := run.Warm(csv, idx); err != nil {
			return err
		}
		args := []string{"verify", csv, "--index", idx, "--threads", strconv.Itoa(counts[i]),
			"--mem-limit-mib", strconv.Itoa(limit), "--tmp-dir", work}
		m, err := run.Timed(bin, args...)
		if err != nil {
			return fmt.Errorf("FAIL: verify --threads %d: %w (1: the index differs from a fresh build)", counts[i], err)
		}
		runs[i].Threads = counts[i]
		runs[i].add(m)
		return nil
	}))
	fmt.Printf("\nverify of that index (equal at every thread count)\n")
	rows := make([]*timing, len(runs))
	for i := range runs {
		rows[i] = &runs[i]
	}
	printTimings("verify s", rows)
	return runs
}

// timeUpdate times csvidx update of rows appended to a copy of csv: the
// copy holds all but share of csv's bytes (cut after a newline) when it is
// indexed, then the rest. Each update, at each thread count, rounds times
// in turns, starts from no tail and must write the same one. Then the tail
// is merged into the main index and verify must find it equal to a fresh
// build of the grown copy. It returns the bytes appended and the timings.
func timeUpdate(bin, csv, work string, counts []int, rounds, limit int, share float64) (int64, []updateResult) {
	grown := filepath.Join(work, "grown.csv")
	idx := filepath.Join(work, "grown.csvidx")
	cut, size, err := cutAfterNewline(csv, share)
	check(err)
	if cut == size {
		check(fmt.Errorf("no newline in the last %.0f%% of %s to cut the CSV at", share*100, csv))
	}
	check(copyRange(csv, grown, 0, cut, os.O_CREATE|os.O_TRUNC))
	_, err = run.Output(bin, run.BuildArgs(grown, idx, work, 0, limit)...)
	check(err)
	check(copyRange(csv, grown, cut, size, os.O_APPEND))
	runs := make([]updateResult, len(counts))
	tail := idx + ".tail"
	check(run.Turns(rounds, len(counts), func(round, i int) error {
		if err := os.Remove(tail); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := run.Warm(grown); err != nil {
			return err
		}
		m, err := run.Timed(bin, "update", grown, "--index", idx, "--no-compact", "--threads", strconv.Itoa(counts[i]),
			"--mem-limit-mib", strconv.Itoa(limit), "--tmp-dir", work)
		if err != nil {
			return fmt.Errorf("update --threads %d: %w", counts[i], err)
		}
		sum, err := run.SHA256(tail)
		if err != nil {
			return err
		}
		r := &runs[i]
		if round > 0 && sum != r.SHA256 {
			return fmt.Errorf("FAIL: update --threads %d wrote another tail in round %d than in the first", counts[i], round+1)
		}
		r.Threads, r.SHA256 = counts[i], sum
		r.add(m)
		return nil
	}))
	same := true
	for _, r := range runs {
		same = same && r.SHA256 == runs[0].SHA256
	}
	fmt.Printf("\nupdate --no-compact of %d appended bytes to %d (the tail removed before each)\n", size-cut, cut)
	rows := make([]*timing, len(runs))
	for i := range runs {
		rows[i] = &runs[i].timing
	}
	printTimings("update s", rows)
	if !same {
		check(fmt.Errorf("FAIL: the tail differs between thread counts"))
	}
	_, err = run.Output(bin, "compact", grown, "--index", idx)
	check(err)
	_, err = run.Output(bin, "verify", grown, "--index", idx, "--tmp-dir", work)
	check(err)
	fmt.Println("ok: the same tail at every thread count; merged, it equals a fresh build of the grown CSV")
	return size - cut, runs
}

// printTimings settles each thread count's timing and prints it as a row,
// with the speedup over the first.
func printTimings(what string, runs []*timing) {
	fmt.Printf("%8s %10s %8s %8s %6s  %s\n", "threads", what, "speedup", "cpu s", "cores", "rounds s")
	for _, r := range runs {
		r.settle()
		fmt.Printf("%8d %10.2f %7.2fx %8.2f %6.2f  %s\n", r.Threads, r.Seconds, runs[0].Seconds/r.Seconds, r.CPUSeconds, r.Cores, run.Seconds(r.Rounds))
	}
}

// cutAfterNewline returns the index just past the first newline at or
// after (1-share) of the file's size, and the size; cut is size when there
// is none.
func cutAfterNewline(path string, share float64) (cut, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size = st.Size()
	buf := make([]byte, 1<<16)
	for at := int64(float64(size) * (1 - share)); at < size; at += int64(len(buf)) {
		n, err := f.ReadAt(buf, at)
		if k := bytes.IndexByte(buf[:n], '\n'); k >= 0 {
			return at + int64(k) + 1, size, nil
		}
		if err != nil {
			break
		}
	}
	return size, size, nil
}

// copyRange copies bytes [from, to) of src to dst, opened with flag (a new
// file, or appended to), and syncs dst: its writeback must not run during
// the timed updates.
func copyRange(src, dst string, from, to int64, flag int) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|flag, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.NewSectionReader(in, from, to-from))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
