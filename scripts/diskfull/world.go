package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// world holds the generated CSV and the tmpfs mounts made for the cases.
type world struct {
	bin, work      string
	full           []byte // the whole CSV
	cut            int    // the old index covers full[:cut]
	fullSize       int
	mounts         []string
	canMount       bool
	mountSkipCause string
}

func newWorld(work, bin string, rows int) (*world, error) {
	w := &world{bin: bin, work: work}
	p := filepath.Join(work, "gen.csv")
	if err := run.Generate(p, rows, "-multiline", "0"); err != nil {
		return nil, err
	}
	var err error
	if w.full, err = os.ReadFile(p); err != nil {
		return nil, err
	}
	w.fullSize = len(w.full)
	w.cut = bytes.LastIndexByte(w.full[:len(w.full)*8/10], '\n') + 1
	// Can this process mount a tmpfs?
	probe := filepath.Join(work, "probe")
	if err := w.mount(probe, 1<<20); err != nil {
		w.mountSkipCause = err.Error()
	} else {
		w.canMount = true
	}
	return w, nil
}

// mount mounts a tmpfs of size bytes at dir.
func (w *world) mount(dir string, size int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), "tmpfs", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mount a tmpfs: %v: %s", err, strings.TrimSpace(string(out)))
	}
	w.mounts = append(w.mounts, dir)
	return nil
}

// shrink sets the size of the tmpfs at dir to what its files use now plus
// room bytes.
func (w *world) shrink(dir string, room int64) error {
	var used int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return err
		}
		used += (info.Size() + 4095) &^ 4095
	}
	out, err := exec.Command("mount", "-o", "remount,size="+strconv.FormatInt(used+room, 10), dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("shrink the tmpfs: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (w *world) unmountAll() {
	for i := len(w.mounts) - 1; i >= 0; i-- {
		exec.Command("umount", w.mounts[i]).Run()
	}
}

// snapshot reads every file in dir but the CSV, by name.
func snapshot(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Name() == "orders.csv" || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = b
	}
	return files, nil
}

// sameFiles says how dir's files differ from a snapshot, or "". With
// newTail, a tail that is not in the snapshot is allowed.
func sameFiles(dir string, want map[string][]byte, newTail bool) string {
	got, err := snapshot(dir)
	if err != nil {
		return err.Error()
	}
	if newTail {
		delete(got, "orders.csv.csvidx.tail")
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			return name + " changed"
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			return name + " appeared"
		}
	}
	return ""
}

// tempFiles counts temporary files in the directories.
func tempFiles(dirs ...string) int {
	n := 0
	for _, d := range dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				n++
			}
		}
	}
	return n
}

// exitStatus runs a command and returns its exit status and standard error.
func exitStatus(name string, args ...string) (int, string, error) {
	var errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), errb.String(), nil
	}
	return 0, errb.String(), err
}
