// Package run runs the csvidx binary for the check scripts under scripts/:
// it builds the binary, times a command, polls its peak anonymous memory,
// and hashes files. It also gives each script what they all begin and end
// with (script.go): the shared flags (-bin, -results, -rows, -csv, -work),
// the workspace, the generated CSV and the results JSON.
package run

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/csvidx/csvidx/internal/atomicfile"
)

// Binary builds csvidx (statically, as the README says) into dir.
func Binary(dir string) (string, error) {
	bin := filepath.Join(dir, "csvidx")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/csvidx")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	return bin, cmd.Run()
}

// BinaryAt builds the csvidx of commit rev into dir, from a temporary git
// worktree, unless dir holds it from an earlier run.
func BinaryAt(rev, dir string) (string, error) {
	src := filepath.Join(dir, "src-"+rev)
	bin := filepath.Join(dir, "csvidx-"+rev)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := exec.Command("git", "worktree", "add", "--detach", src, rev).Run(); err != nil {
		return "", fmt.Errorf("check out %s: %w", rev, err)
	}
	defer exec.Command("git", "worktree", "remove", "--force", src).Run()
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/csvidx")
	cmd.Dir, cmd.Env = src, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", rev, err, out)
	}
	return bin, nil
}

// HelloBinary compiles a Go hello-world into dir: timed next to csvidx, the
// start-up of any Go command.
func HelloBinary(dir string) (string, error) {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"), 0o644)
	bin := filepath.Join(dir, "hello-bin")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	return bin, cmd.Run()
}

// Result is what Measure or Timed saw of one command.
type Result struct {
	Seconds     float64
	CPUSeconds  float64 // user and system time of the command, from its rusage
	PeakAnonKiB int64   // highest RssAnon, polled every 5 ms
	Stdout      string
}

// Measure runs name with args, timing it and polling its RssAnon, which
// leaves out the CSV's mapped pages: file pages the kernel can drop.
func Measure(name string, args ...string) (Result, error) {
	return timed(name, args, Poll)
}

// Timed runs name with args and times it, without polling: polling the
// process every 5 ms made 100M-row builds 0.1-0.3 s slower on the 2-core
// reference VM, so a check that reports no memory should not pay for it.
// PeakAnonKiB is 0.
func Timed(name string, args ...string) (Result, error) {
	return timed(name, args, func(cmd *exec.Cmd) (int64, error) { return 0, cmd.Run() })
}

// timed runs name with args through run, which starts the command and
// waits for it, and times it.
func timed(name string, args []string, run func(*exec.Cmd) (peakKiB int64, err error)) (Result, error) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	start := time.Now()
	peak, err := run(cmd)
	r := Result{Seconds: time.Since(start).Seconds(), PeakAnonKiB: peak, Stdout: out.String()}
	if ps := cmd.ProcessState; ps != nil {
		r.CPUSeconds = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	return r, err
}

// Poll starts cmd, reads its RssAnon every 5 ms until it exits, and returns
// the highest value seen (KiB) with what cmd.Wait returned.
func Poll(cmd *exec.Cmd) (peakKiB int64, err error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return peakKiB, err
		case <-tick.C:
			peakKiB = max(peakKiB, RSSAnon(status))
		}
	}
}

// RSSAnon reads RssAnon (KiB), the process's resident anonymous memory,
// from a /proc/PID/status file, or 0.
func RSSAnon(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// SHA256 returns the hex SHA-256 of the file at path. It reads the file
// with direct I/O, past the page cache: the checks hash each index between
// timed builds, and a 1.6 GB index read into the cache, then deleted, made
// the next two-thread build slower on the reference VM (medians of four:
// 5.66 s against 4.87 s with no hash, 5.15 s hashed with direct I/O; one
// thread 8.84, 8.67 and 8.75 s).
func SHA256(path string) (string, error) {
	sum, err := hashFile(path, openDirect)
	if errors.Is(err, syscall.EINVAL) { // a file system without direct I/O, at the open or the reads
		sum, err = hashFile(path, os.Open)
	}
	return sum, err
}

// hashFile returns the hex SHA-256 of the file at path, opened by open.
func hashFile(path string, open func(string) (*os.File, error)) (string, error) {
	f, err := open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := atomicfile.AlignedBlocks(hashBlocks) // direct reads need aligned memory
	for {
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashBlocks is the size of SHA256's reads, in direct I/O blocks: 4 MiB.
const hashBlocks = 4 << 20 / atomicfile.BlockSize

// RemoveIndex removes the index at path and the tail and fence beside it,
// so that the next build writes a fresh one, as a benchmark means. A build
// that replaces an index pays for dropping the old file's cached pages (0.2 s
// for 1.6 GB on the reference VM), and while a checker's hash of it keeps it
// in the page cache, builds that spill were 1.2-1.6 s slower there (100M rows).
func RemoveIndex(path string) error {
	for _, p := range []string{path, path + ".tail", path + ".fence"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// MedianOf returns the median of xs (the mean of the middle two of an even
// count), or 0.
func MedianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// PairedRatio is the median of a[i]/b[i]: of two commands timed in turns,
// the ratio of runs that were neighbours in time.
func PairedRatio(a, b []float64) float64 {
	var rs []float64
	for i := range min(len(a), len(b)) {
		rs = append(rs, a[i]/b[i])
	}
	return MedianOf(rs)
}

// A Build is one timed build of an index, by Rounds.
type Build struct {
	Result        // what the measuring function saw
	SHA256 string // of the index it wrote
}

// Rounds times builds of one index at idx with measure ([Measure], or
// [Timed] when memory is not reported): build i runs bin with args[i],
// rounds times in turns (see [Turns]), each after the last index is removed
// and the files in warm are read through (see [Warm]), untimed. each gets
// every build as it ends. Rounds fails when a build writes another index in
// a later round than in the first.
func Rounds(measure func(name string, args ...string) (Result, error), bin, idx string, warm []string, rounds int, args [][]string, each func(i int, b Build) error) error {
	first := make([]string, len(args))
	return Turns(rounds, len(args), func(round, i int) error {
		a := args[i]
		if err := RemoveIndex(idx); err != nil {
			return err
		}
		if err := Warm(warm...); err != nil {
			return err
		}
		m, err := measure(bin, a...)
		if err != nil {
			return err
		}
		sum, err := SHA256(idx)
		if err != nil {
			return err
		}
		if round == 0 {
			first[i] = sum
		} else if sum != first[i] {
			return fmt.Errorf("FAIL: %s %s wrote another index in round %d than in the first", bin, strings.Join(a, " "), round+1)
		}
		return each(i, Build{m, sum})
	})
}

// Turns calls fn for each of n runs, rounds times (at least once) in turns:
// medians of runs taken in turns see the same machine. Every second round
// takes the runs in the reverse order, so that a machine growing steadily
// slower or faster weighs on each alike, over an even number of rounds (in
// pairs of builds taken in turns on the reference VM, the first was the
// slower in nine of ten, whichever it was). Turns stops at fn's first error.
func Turns(rounds, n int, fn func(round, i int) error) error {
	for round := range max(1, rounds) {
		for k := range n {
			i := k
			if round%2 == 1 {
				i = n - 1 - k
			}
			if err := fn(round, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// BuildArgs returns the arguments of a csvidx build of csv keyed on
// user_id, writing idx, with the given threads, memory limit and spill
// directory: the builds the checks time.
func BuildArgs(csv, idx, tmpDir string, threads, limitMiB int) []string {
	return []string{"build", csv, "--key", "user_id", "--index", idx, "--threads", strconv.Itoa(threads),
		"--mem-limit-mib", strconv.Itoa(limitMiB), "--tmp-dir", tmpDir, "--json"}
}

// Ints parses a comma-separated list of integers, such as a flag's "1,2,4".
func Ints(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// Seconds formats times in seconds, two decimals, separated by spaces.
func Seconds(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strings.Join(parts, " ")
}

// Generate writes rows orders rows to path with scripts/csvgen; extra
// flags go to it.
func Generate(path string, rows int, extra ...string) error {
	args := append([]string{"run", "./scripts/csvgen", "-rows", strconv.Itoa(rows), "-o", path}, extra...)
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// GenerateStats is Generate with csvgen's -stats, which it returns (csvgen
// prints them to standard error): the rows and bytes written, and heavy,
// ordinary and missing user ids, which StatField reads.
func GenerateStats(path string, rows int, extra ...string) (string, error) {
	args := append([]string{"run", "./scripts/csvgen", "-rows", strconv.Itoa(rows), "-o", path}, extra...)
	cmd := exec.Command("go", append(args, "-stats")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("csvgen: %w\n%s", err, out)
	}
	return string(out), nil
}

// StatField returns the first word after label in csvgen's -stats output.
func StatField(stats, label string) string {
	for _, line := range strings.Split(stats, "\n") {
		if rest, ok := strings.CutPrefix(line, label); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// Output runs a command and returns its standard output; on failure the
// error holds its standard error too.
func Output(name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// OutputAllowing1 is Output for commands that exit 1 for "no match".
func OutputAllowing1(name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, errb.String())
		}
	}
	return out.String(), nil
}

// Time runs a command with its output read through a pipe (GNU grep stops
// at the first match when its output is /dev/null) and returns how long it
// took. Exit status 1 (no match) is not an error.
func Time(name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdout = io.Discard
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil
	}
	return d, err
}

// Median runs fn n times and returns the median of what it returns.
func Median(n int, fn func() (time.Duration, error)) (time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for range n {
		d, err := fn()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

// Alternate runs a and b n times each, alternately, and returns the median
// of each. Two commands compared this way see the same machine: timings on
// a VM drift by a third between runs minutes apart.
// The order swaps every round, so neither always runs right after the other.
func Alternate(n int, a, b func() (time.Duration, error)) (time.Duration, time.Duration, error) {
	if n < 1 {
		return 0, 0, errors.New("Alternate needs at least one run")
	}
	as, bs := make([]time.Duration, 0, n), make([]time.Duration, 0, n)
	for i := range n {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		d1, err := first()
		if err != nil {
			return 0, 0, err
		}
		d2, err := second()
		if err != nil {
			return 0, 0, err
		}
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		as, bs = append(as, d1), append(bs, d2)
	}
	slices.Sort(as)
	slices.Sort(bs)
	return as[n/2], bs[n/2], nil
}

// Warm reads the files through, so that a build timed on a warm cache finds
// all of their pages in memory. On the reference VM a kernel daemon (DAMON,
// paging out file pages it sees unused for about a minute, at up to 128 MB/s)
// drops pages of a CSV between builds: a build then reads them back from
// storage as it goes, the faster builds waiting the most for them. A file
// larger than the memory cannot stay whole in the page cache: reading it
// through then only costs time.
func Warm(paths ...string) error {
	buf := make([]byte, 1<<20)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		for {
			if _, err = f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
		if err != io.EOF {
			return fmt.Errorf("warm %s: %w", p, err)
		}
	}
	return nil
}

// DropCache evicts the files' pages from the page cache
// (posix_fadvise DONTNEED: no privilege needed), writing dirty ones first:
// those of a file just written could not be dropped. Missing files are
// skipped.
func DropCache(paths ...string) {
	for _, p := range paths {
		fd, err := unix.Open(p, unix.O_RDONLY, 0)
		if err != nil {
			continue
		}
		unix.Fdatasync(fd)
		unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
		unix.Close(fd)
	}
}
