// Package run runs the csvidx binary for the check scripts under scripts/:
// it builds the binary, times a command, polls its peak anonymous memory,
// and hashes files.
package run

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Binary builds csvidx (statically, as the README says) into dir.
func Binary(dir string) (string, error) {
	bin := filepath.Join(dir, "csvidx")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/csvidx")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	return bin, cmd.Run()
}

// Result is what Measure saw of one command.
type Result struct {
	Seconds     float64
	PeakAnonKiB int64 // highest RssAnon, polled every 5 ms
	Stdout      string
}

// Measure runs name with args, timing it and polling its RssAnon, which
// leaves out the CSV's mapped pages: file pages the kernel can drop.
func Measure(name string, args ...string) (Result, error) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var r Result
	for {
		select {
		case err := <-done:
			r.Seconds = time.Since(start).Seconds()
			r.Stdout = out.String()
			return r, err
		case <-time.After(5 * time.Millisecond):
			r.PeakAnonKiB = max(r.PeakAnonKiB, rssAnon(status))
		}
	}
}

// rssAnon reads RssAnon (KiB) from a /proc status file, or 0.
func rssAnon(path string) int64 {
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

// SHA256 returns the hex SHA-256 of the file at path.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Generate writes rows orders rows to path with scripts/csvgen; extra
// flags go to it.
func Generate(path string, rows int, extra ...string) error {
	args := append([]string{"run", "./scripts/csvgen", "-rows", strconv.Itoa(rows), "-o", path}, extra...)
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}
