package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Outcomes of a build.
const (
	built      = "built+verified"
	cleanError = "clean error"
	failed     = "FAIL"
)

// classify says how a build ended: built (exit 0, nothing on standard
// error, which is not a terminal), a clean error (exit 2 and one line
// "csvidx: ..."), or a failure, with what was wrong.
func classify(p proc) (string, []string) {
	switch {
	case p.TimedOut:
		return failed, []string{fmt.Sprintf("killed after %.0f s", p.Seconds)}
	case p.Exit == 0 && p.Stderr == "":
		return built, nil
	case p.Exit == 0:
		return failed, []string{"exit 0 but wrote to standard error: " + firstLine(p.Stderr)}
	}
	msg := strings.TrimSuffix(p.Stderr, "\n")
	switch {
	case strings.Contains(p.Stderr, "panic") || strings.Contains(p.Stderr, "goroutine "):
		return failed, []string{fmt.Sprintf("exit %d with a panic or stack trace: %s", p.Exit, firstLine(p.Stderr))}
	case p.Exit != 2:
		return failed, []string{fmt.Sprintf("exit %d (want 0, or 2 for an error): %s", p.Exit, firstLine(p.Stderr))}
	case strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "csvidx: "):
		return failed, []string{"exit 2 but not one line \"csvidx: ...\": " + firstLine(p.Stderr)}
	}
	return cleanError, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strconv.Quote(s)
}

// checker runs the cheap correctness checks on a built index.
type checker struct {
	bin     string
	dir     string // for key files
	timeout time.Duration
	mem     int
}

// run runs a csvidx command and returns the problem with it, if any: an
// exit status other than want, or anything on standard error.
func (c *checker) run(want int, args ...string) (proc, string) {
	p, err := measure(c.timeout, c.bin, args...)
	switch {
	case err != nil:
		return p, err.Error()
	case p.Exit != want || p.Stderr != "":
		msg := fmt.Sprintf("csvidx %s: exit %d (want %d)", strings.Join(quoteAll(args), " "), p.Exit, want)
		if p.Stderr != "" {
			msg += ", standard error " + firstLine(p.Stderr)
		}
		return p, msg
	}
	return p, ""
}

// check runs verify, info --json, get --count for every probe key and get
// for every probe key whose rows the generator kept, and returns the
// problems found.
func (c *checker) check(csv string, exp expect) []string {
	var problems []string
	add := func(s string) {
		if s != "" {
			problems = append(problems, s)
		}
	}
	_, pr := c.run(0, "verify", csv, "--mem-limit-mib", strconv.Itoa(c.mem))
	add(pr)
	add(c.checkInfo(csv, exp))
	add(c.checkCounts(csv, exp))
	for _, k := range exp.Keys {
		if out, ok := exp.Out[k]; ok {
			add(c.checkGet(csv, k, out))
		}
	}
	return problems
}

// checkInfo compares info --json's counts with the generator's.
func (c *checker) checkInfo(csv string, exp expect) string {
	p, pr := c.run(0, "info", csv, "--json")
	if pr != "" {
		return pr
	}
	var got struct {
		Rows         int64  `json:"rows"`
		Records      int64  `json:"records"`
		Unterminated bool   `json:"unterminated"`
		Stale        string `json:"stale"`
		BytesBehind  int64  `json:"bytes_behind"`
	}
	if err := json.Unmarshal(p.Stdout, &got); err != nil {
		return fmt.Sprintf("info --json: %v", err)
	}
	if got.Rows != exp.Rows || got.Records != exp.Records || got.Unterminated != exp.Unterminated || got.Stale != "" || got.BytesBehind != 0 {
		return fmt.Sprintf("info: rows %d, records %d, unterminated %v, stale %q, behind %d; want rows %d, records %d, unterminated %v, fresh",
			got.Rows, got.Records, got.Unterminated, got.Stale, got.BytesBehind, exp.Rows, exp.Records, exp.Unterminated)
	}
	return ""
}

// keyArgs passes keys on the command line, or in a key file when one
// holds a NUL byte, which no argument can.
func (c *checker) keyArgs(keys []string) []string {
	for _, k := range keys {
		if strings.Contains(k, "\x00") {
			path := filepath.Join(c.dir, "keys.txt")
			if err := os.WriteFile(path, []byte(strings.Join(keys, "\n")+"\n"), 0o644); err != nil {
				return keys
			}
			return []string{"--keys-file", path}
		}
	}
	return keys
}

// checkCounts asks get --count for every probe key at once.
func (c *checker) checkCounts(csv string, exp expect) string {
	var want bytes.Buffer
	status := 1
	for _, k := range exp.Keys {
		fmt.Fprintf(&want, "%s\t%d\n", k, exp.Counts[k])
		if exp.Counts[k] > 0 {
			status = 0
		}
	}
	p, pr := c.run(status, append([]string{"get", csv, "--count"}, c.keyArgs(exp.Keys)...)...)
	if !bytes.Equal(p.Stdout, want.Bytes()) {
		pr = strings.TrimPrefix(pr+"; ", "; ") + fmt.Sprintf("get --count printed %q, want %q", clip(p.Stdout), clip(want.Bytes()))
	}
	return pr
}

// checkGet compares get's rows for one key with the generator's.
func (c *checker) checkGet(csv, key string, want []byte) string {
	status := 0
	if len(want) == 0 {
		status = 1
	}
	p, pr := c.run(status, append([]string{"get", csv}, c.keyArgs([]string{key})...)...)
	if !bytes.Equal(p.Stdout, want) {
		pr = strings.TrimPrefix(pr+"; ", "; ") + fmt.Sprintf("get %q printed %q, want %q", key, clip(p.Stdout), clip(want))
	}
	return pr
}

func clip(b []byte) []byte {
	if len(b) > 120 {
		return append(b[:120:120], "..."...)
	}
	return b
}

func quoteAll(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if strings.ContainsAny(a, " \x00\"") || !isPrint(a) {
			q[i] = strconv.Quote(a)
		}
	}
	return q
}

func isPrint(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// leftovers counts the temporary files a build left: spill files in the
// spill directory, and INDEX.tmp-* files next to the index.
func leftovers(spill, csv string) int {
	left, _ := os.ReadDir(spill)
	near, _ := filepath.Glob(csv + ".csvidx*.tmp-*")
	return len(left) + len(near)
}
