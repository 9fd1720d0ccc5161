package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// modeRun is one join command of the -modes comparison, with its times
// over the rounds, the peak anonymous memory of its last run and the
// SHA-256 of its output, which must be the same for each run of a mode.
type modeRun struct {
	Name        string    `json:"name"`
	Args        []string  `json:"args"`
	Seconds     []float64 `json:"seconds"`
	PeakAnonKiB int64     `json:"peak_anon_kib"`
	Output      string    `json:"output_sha256"`
}

// measureModes times the joins that keep a bit per RIGHT row (--full),
// with the bits in memory and, under a 1 MiB --mem-limit-mib, in a
// temporary file, against the inner join, and each against old (the
// binary before a change) when given, warm, in turns. Joins of one mode
// must print the same bytes whichever the binary and the limit.
func measureModes(bin, old, left, right string, rounds int) ([]*modeRun, error) {
	if out, err := runOut(bin, "build", right, "--key", "user_id", "-q"); err != nil {
		return nil, fmt.Errorf("build: %v: %s", err, out)
	}
	join := []string{"join", left, right, "--key", "user_id"}
	var runs []*modeRun
	add := func(name, b string, extra ...string) {
		runs = append(runs, &modeRun{Name: name, Args: append(append([]string{b}, join...), extra...)})
	}
	add("inner", bin)
	add("--full, bits in memory", bin, "--full")
	add("--full --mem-limit-mib 1, bits in a file", bin, "--full", "--mem-limit-mib", "1")
	if old != "" {
		add("inner, old binary", old)
		add("--full, old binary", old, "--full")
	}
	if err := run.Warm(left, right, right+".csvidx"); err != nil {
		return nil, err
	}
	err := run.Turns(rounds, len(runs), func(_, i int) error {
		r := runs[i]
		secs, peak, sum, err := timeJoin(r.Args)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		if r.Output != "" && r.Output != sum {
			return fmt.Errorf("%s printed other bytes than on its last run", r.Name)
		}
		r.Seconds, r.PeakAnonKiB, r.Output = append(r.Seconds, secs), peak, sum
		return nil
	})
	if err != nil {
		return nil, err
	}
	same := map[string]string{} // a mode's output, by the mode's flags
	for _, r := range runs {
		mode := "inner"
		if strings.Contains(r.Name, "--full") {
			mode = "full"
		}
		if s, ok := same[mode]; ok && s != r.Output {
			return nil, fmt.Errorf("%s printed other bytes than the other %s joins", r.Name, mode)
		}
		same[mode] = r.Output
	}
	return runs, nil
}

// timeJoin runs args, hashing what it prints, and returns its time, its
// peak anonymous memory and the hash.
func timeJoin(args []string) (float64, int64, string, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	h := sha256.New()
	cmd.Stdout = h // Wait waits for the copy
	start := time.Now()
	peak, err := run.Poll(cmd)
	secs := time.Since(start).Seconds()
	return secs, peak, hex.EncodeToString(h.Sum(nil)), err
}

// reportModes prints the -modes table: each join's median time, and a
// join of the new binary against the same of the old one as the median of
// their ratios round by round (runs of a round are neighbours in time).
func reportModes(runs []*modeRun) {
	old := map[string]*modeRun{}
	for _, r := range runs {
		if mode, ok := strings.CutSuffix(r.Name, ", old binary"); ok {
			old[mode] = r
		}
	}
	fmt.Printf("\n| join | median time | runs | / old binary, paired | peak anonymous RSS | output SHA-256 |\n| --- | ---: | --- | ---: | ---: | --- |\n")
	for _, r := range runs {
		vs := ""
		mode, _, _ := strings.Cut(r.Name, ", bits in memory")
		if o, ok := old[mode]; ok && o != r {
			vs = fmt.Sprintf("%.3fx", run.PairedRatio(r.Seconds, o.Seconds))
		}
		fmt.Printf("| %s | %.3f s | %s s | %s | %s | %s |\n", r.Name, run.MedianOf(r.Seconds), run.Seconds(r.Seconds), vs, mib(r.PeakAnonKiB), r.Output[:12])
	}
}
