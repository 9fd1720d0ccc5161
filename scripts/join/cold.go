package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// coldCase is csvidx join of a LEFT of Probes random users with a cold
// RIGHT, reading RIGHT page by page as the lookups touch it (never), whole
// and in order from the start (always), or from where auto decides to, in
// turns.
type coldCase struct {
	Probes       int       `json:"probes"`
	RightPages   int64     `json:"right_pages"` // of RIGHT's CSV and its index
	NeverSeconds []float64 `json:"never_seconds"`
	AheadSeconds []float64 `json:"always_seconds"`
	AutoSeconds  []float64 `json:"auto_seconds"`
}

// measureCold finds where reading RIGHT ahead wins on a cold cache: for
// each count of lookups, the join with --read-ahead never and always, the
// page cache of RIGHT and its index dropped before each run.
func measureCold(bin, work, right string, users int, probes []int, rounds int) ([]coldCase, error) {
	if out, err := runOut(bin, "build", right, "--key", "user_id", "-q"); err != nil {
		return nil, fmt.Errorf("build: %v: %s", err, out)
	}
	files := []string{right, right + ".csvidx", right + ".csvidx.fence"}
	var pages int64
	for _, f := range files[:2] {
		st, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		pages += st.Size() / 4096
	}
	r := rand.New(rand.NewPCG(4, 12))
	var out []coldCase
	for _, k := range probes {
		left := filepath.Join(work, fmt.Sprintf("left-%d.csv", k))
		f, err := os.Create(left)
		if err != nil {
			return nil, err
		}
		w := bufio.NewWriter(f)
		w.WriteString("user_id\n")
		for range k {
			fmt.Fprintf(w, "%d\n", 1+r.IntN(users))
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
		f.Close()
		c := coldCase{Probes: k, RightPages: pages}
		err = run.Turns(rounds, 3, func(_, i int) error {
			mode := []string{"never", "always", "auto"}[i]
			run.DropCache(files...)
			start := time.Now()
			if out, err := runOut(bin, "join", left, right, "--key", "user_id", "--read-ahead", mode); err != nil {
				return fmt.Errorf("join: %v: %s", err, out)
			}
			t := time.Since(start).Seconds()
			switch i {
			case 0:
				c.NeverSeconds = append(c.NeverSeconds, t)
			case 1:
				c.AheadSeconds = append(c.AheadSeconds, t)
			default:
				c.AutoSeconds = append(c.AutoSeconds, t)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "%d lookups (%.2f%% of %d pages): page by page %.2f s, read ahead %.2f s\n",
			k, 100*float64(k)/float64(pages), pages, run.MedianOf(c.NeverSeconds), run.MedianOf(c.AheadSeconds))
		out = append(out, c)
	}
	return out, nil
}

// reportCold prints the cold table.
func reportCold(cs []coldCase) {
	fmt.Printf("\n| lookups | share of RIGHT's pages | page by page (never) | read ahead (always) | auto | ahead / page by page | auto / the better |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, c := range cs {
		n, a, au := run.MedianOf(c.NeverSeconds), run.MedianOf(c.AheadSeconds), run.MedianOf(c.AutoSeconds)
		fmt.Printf("| %d | %.2f%% | %s s | %s s | %s s | %.2fx | %.2fx |\n", c.Probes, 100*float64(c.Probes)/float64(c.RightPages),
			run.Seconds(c.NeverSeconds), run.Seconds(c.AheadSeconds), run.Seconds(c.AutoSeconds), a/n, au/min(a, n))
	}
}

// runOut runs name with args and returns what it wrote to stderr and stdout.
func runOut(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}
