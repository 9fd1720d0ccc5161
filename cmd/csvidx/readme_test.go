//go:build unix

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeExamples runs the README's shell examples (its ```sh blocks but
// the quick start's, which .ci/run runs as they are), in order, in one
// directory holding the bundled sample as orders.csv, with the real csvidx
// on PATH: each block must succeed. A README command that no longer works
// fails here.
func TestReadmeExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sample, err := os.ReadFile("../../testdata/orders.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "orders.csv"), sample, 0o644); err != nil {
		t.Fatal(err)
	}
	blocks := shellBlocks(readme)
	ran := 0
	for _, b := range blocks {
		if strings.Contains(b, "go build") || strings.Contains(b, "./test.sh") { // the quick start
			continue
		}
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", b)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("README block\n%s\nfailed: %v\n%s", b, err, out)
		}
		ran++
	}
	if ran < 4 {
		t.Fatalf("only %d shell blocks found in the README", ran)
	}
}

// shellBlocks returns the bodies of the ```sh blocks of a Markdown text.
func shellBlocks(md []byte) []string {
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && line == "```sh":
			cur = &strings.Builder{}
		case cur != nil && line == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// TestTestCommandStages checks that ./test.sh announces each stage it runs
// (a `step` line before each command after the Python check) and counts
// them right, and that the README gives the same number of stages.
func TestTestCommandStages(t *testing.T) {
	script, err := os.ReadFile("../../test.sh")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(script), "\n")
	stages, steps, announced := -1, 0, false
	started := false // past the Python check, where the stages begin
	for i, line := range lines {
		if n, ok := strings.CutPrefix(line, "stages="); ok {
			stages, err = strconv.Atoi(n)
			if err != nil {
				t.Fatalf("test.sh:%d: %q", i+1, line)
			}
		}
		if strings.HasPrefix(line, "step ") {
			steps++
			announced, started = true, true
			continue
		}
		if !started || line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "echo ") {
			continue
		}
		if !announced {
			t.Errorf("test.sh:%d: %q runs without a step line before it", i+1, line)
		}
		announced = false
	}
	if steps == 0 || steps != stages {
		t.Errorf("test.sh runs %d steps and says stages=%d", steps, stages)
	}
	names := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	if stages >= 0 && stages < len(names) && !strings.Contains(string(readme), names[stages]+" stages") {
		t.Errorf("the README does not say that ./test.sh has %s stages", names[stages])
	}
}
