// Command compressed measures csvidx on compressed CSV files (issue 40),
// in one run, in turns: on an orders CSV (scripts/csvgen) and its BGZF
// (bgzip -@2), multi-frame zstd (pzstd -p2's, and csvidx compress's, in
// frames of 64 KiB) and plain gzip (gzip -6's) copies, it times
//
//   - the build of the index by user_id of each, warm (the codecs build,
//     csvidx-codecs, for the compressed ones), the old index removed
//     untimed before each, and of the plain file on one thread (--threads
//     1: a build of plain gzip scans on the core the inflate leaves);
//   - each decoder's floor: a decode-only pass over the same file with the
//     same decoder, two goroutines reading 4 MiB windows as the scan's
//     workers do (in process); for plain gzip, whose inflate is serial,
//     one inflate of the file (klauspost's gzip reader, in process); and
//     the CLI decompressors (bgzip -d -@2, pzstd -d -p2, gzip -dc) into
//     /dev/null;
//   - csvidx compress against pzstd -3 -p2 (time and bytes);
//   - csvidx get of an ordinary key as a process, warm, on each file: the
//     plain one with csvidx and with csvidx-codecs, the compressed ones
//     with csvidx-codecs and through csvidx's re-exec, next to a Go
//     hello-world process;
//
// and the floors of what misses a target, each from figures of the same
// run: a lookup in a compressed file decodes each frame (of plain gzip,
// each span between checkpoints) that holds one of its rows, whole, to
// check its checksum (the frames the key's rows lie in, counted from the
// plain CSV's rows and the source's Splits, times a frame's share of the
// decode-only pass on two cores), on top of the plain file's get by the
// same binary; the build of plain gzip takes at least its one
// inflate or the plain build on one thread, whichever is longer;
//
// and reports the index's extra bytes per row (its frame table) and the
// files' sizes. It prints a table, with the ratios the issue sets targets
// for, and writes the figures as JSON (run.SaveResults).
//
//	go run ./scripts/compressed -rows 5000000 -rounds 5 -gets 300
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/csvidx/csvidx/scripts/internal/run"
	"github.com/csvidx/csvidx/source"
	_ "github.com/csvidx/csvidx/source/compressed" // the backends source.Open reads gzip and zstd with
)

// A file is one form of the CSV.
type file struct {
	Name      string `json:"name"` // plain, bgzf, zstd
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	IndexByte int64  `json:"index_bytes"`
	Table     int64  `json:"table_bytes"`
}

// results is what the run measured.
type results struct {
	CSV        string               `json:"csv"`
	Rows       int                  `json:"rows"`
	PlainBytes int64                `json:"plain_bytes"`
	Files      []file               `json:"files"`
	Seconds    map[string][]float64 `json:"seconds"` // by measure, in rounds
	GetKey     string               `json:"get_key"`
	KeyFrames  map[string][2]int    `json:"key_frames"` // by file: the frames the key's rows lie in, and the file's frames
}

func main() {
	s := run.NewScript("compressed")
	s.CSVFlags(5_000_000, "the CSV (generated when empty)")
	s.WorkFlag("the directory to work in (a temporary one when empty)")
	rounds := flag.Int("rounds", 5, "rounds of the builds and decodes, in turns")
	gets := flag.Int("gets", 300, "get processes per file, in turns")
	flag.Parse()
	remove, err := s.Workspace("csvidx-compressed-")
	if err != nil {
		log.Fatal(err)
	}
	defer remove()
	if err := s.GenerateCSV(); err != nil {
		log.Fatal(err)
	}
	codecs := filepath.Join(filepath.Dir(s.Bin), "csvidx-codecs")
	if out, err := exec.Command("go", "build", "-tags", "codecs", "-o", codecs, "./cmd/csvidx").CombinedOutput(); err != nil {
		log.Fatalf("build csvidx-codecs: %v\n%s", err, out)
	}
	hello, err := run.HelloBinary(s.Work)
	if err != nil {
		log.Fatal(err)
	}
	r, err := measure(s, codecs, hello, *rounds, *gets)
	if err != nil {
		log.Fatal(err)
	}
	report(r)
	name, err := run.SaveResults(s.Results, "compressed", r.PlainBytes, r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", name)
}

// measure makes the compressed copies and takes every measure.
func measure(s *run.Script, codecs, hello string, rounds, gets int) (*results, error) {
	st, err := os.Stat(s.CSV)
	if err != nil {
		return nil, err
	}
	r := &results{CSV: s.CSV, Rows: s.Rows, PlainBytes: st.Size(), Seconds: map[string][]float64{}}
	gz, zst, czst, pgz := s.CSV+".gz", s.CSV+".zst", s.CSV+".csvidx-compress.zst", s.CSV+".plain.gz"
	for _, c := range []string{
		fmt.Sprintf("gzip -6 -c %q > %q", s.CSV, pgz),
		fmt.Sprintf("bgzip -@2 -c %q > %q", s.CSV, gz),
		fmt.Sprintf("pzstd -q -f -p 2 -3 -c %q > %q", s.CSV, zst),
		fmt.Sprintf("%q compress %q -o %q --force", codecs, s.CSV, czst),
	} {
		if out, err := exec.Command("sh", "-c", c).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", c, err, out)
		}
	}
	bins := map[string]string{"plain": s.Bin, "bgzf": codecs, "zstd": codecs, "zstd64k": codecs, "gzip": codecs}
	for _, f := range []file{{Name: "plain", Path: s.CSV}, {Name: "bgzf", Path: gz}, {Name: "zstd", Path: zst}, {Name: "zstd64k", Path: czst}, {Name: "gzip", Path: pgz}} {
		st, err := os.Stat(f.Path)
		if err != nil {
			return nil, err
		}
		f.Bytes = st.Size()
		r.Files = append(r.Files, f)
	}
	if err := run.Warm(s.CSV, gz, zst, czst, pgz); err != nil {
		return nil, err
	}
	// Builds and decodes, in turns.
	type job struct {
		name string
		fn   func() (float64, error)
	}
	var jobs []job
	for _, f := range r.Files {
		jobs = append(jobs, job{"build " + f.Name, func() (float64, error) {
			if err := run.RemoveIndex(f.Path + ".csvidx"); err != nil {
				return 0, err
			}
			res, err := run.Timed(bins[f.Name], "build", f.Path, "--key", "user_id", "-q")
			return res.Seconds, err
		}})
	}
	jobs = append(jobs, job{"build plain --threads 1", func() (float64, error) {
		if err := run.RemoveIndex(s.CSV + ".csvidx"); err != nil {
			return 0, err
		}
		res, err := run.Timed(s.Bin, "build", s.CSV, "--key", "user_id", "-q", "--threads", "1")
		return res.Seconds, err
	}})
	for _, f := range r.Files[1:] {
		decode := decodeOnly
		if f.Name == "gzip" {
			decode = inflateOnly
		}
		jobs = append(jobs, job{"decode-only " + f.Name, func() (float64, error) { return decode(f.Path) }})
	}
	for name, c := range map[string]string{
		"bgzip -d -@2":    fmt.Sprintf("bgzip -d -@2 -c %q > /dev/null", gz),
		"pzstd -d -p2":    fmt.Sprintf("pzstd -q -d -p 2 -c %q > /dev/null", zst),
		"gzip -dc":        fmt.Sprintf("gzip -dc %q > /dev/null", pgz),
		"pzstd -3 -p2":    fmt.Sprintf("pzstd -q -f -p 2 -3 -c %q > %q", s.CSV, zst+".timed"),
		"csvidx compress": fmt.Sprintf("%q compress %q -o %q --force 2> /dev/null", codecs, s.CSV, czst+".timed"),
	} {
		jobs = append(jobs, job{name, func() (float64, error) {
			res, err := run.Timed("sh", "-c", c)
			return res.Seconds, err
		}})
	}
	err = run.Turns(rounds, len(jobs), func(round, i int) error {
		sec, err := jobs[i].fn()
		if err != nil {
			return fmt.Errorf("%s: %w", jobs[i].name, err)
		}
		r.Seconds[jobs[i].name] = append(r.Seconds[jobs[i].name], sec)
		fmt.Printf("round %d, %s: %.3f s\n", round, jobs[i].name, sec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, f := range r.Files {
		var info struct {
			IndexBytes int64 `json:"index_bytes"`
			TableBytes int64 `json:"table_bytes"`
		}
		out, err := run.Output(bins[f.Name], "info", f.Path, "--json")
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(out), &info); err != nil {
			return nil, err
		}
		r.Files[i].IndexByte, r.Files[i].Table = info.IndexBytes, info.TableBytes
	}
	return r, measureGets(r, s.Bin, codecs, hello, gets)
}

// measureGets times get of one ordinary key as a process on each file, and
// the hello-world, in turns; every file must print the same rows.
func measureGets(r *results, plain, codecs, hello string, gets int) error {
	key, err := ordinaryKey(plain, r.CSV, r.PlainBytes)
	if err != nil {
		return err
	}
	r.GetKey = key
	type getJob struct {
		name string
		args []string
	}
	jobs := []getJob{
		{"get plain", []string{plain, "get", r.Files[0].Path, r.GetKey}},
		{"get plain (csvidx-codecs)", []string{codecs, "get", r.Files[0].Path, r.GetKey}},
		{"get bgzf (csvidx-codecs)", []string{codecs, "get", r.Files[1].Path, r.GetKey}},
		{"get bgzf (csvidx, re-exec)", []string{plain, "get", r.Files[1].Path, r.GetKey}},
		{"get zstd (csvidx-codecs)", []string{codecs, "get", r.Files[2].Path, r.GetKey}},
		{"get zstd64k (csvidx-codecs)", []string{codecs, "get", r.Files[3].Path, r.GetKey}},
		{"get gzip (csvidx-codecs)", []string{codecs, "get", r.Files[4].Path, r.GetKey}},
		{"hello-world process", []string{hello}},
	}
	if r.KeyFrames, err = keyFrames(r, key); err != nil {
		return err
	}
	want := ""
	return run.Turns(gets, len(jobs), func(round, i int) error {
		j := jobs[i]
		res, err := run.Timed(j.args[0], j.args[1:]...)
		if err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		if strings.HasPrefix(j.name, "get") {
			if want == "" {
				want = res.Stdout
			}
			if res.Stdout != want || want == "" {
				return fmt.Errorf("%s printed other rows than the plain file's (%d and %d bytes)", j.name, len(res.Stdout), len(want))
			}
		}
		r.Seconds[j.name] = append(r.Seconds[j.name], res.Seconds)
		return nil
	})
}

// decodeOnly reads the plain bytes of the compressed file at path through
// its source, as a build's two workers do, in 4 MiB windows, and returns
// the seconds it took: the decoder's floor.
func decodeOnly(path string) (float64, error) {
	start := time.Now()
	src, err := source.Open(path, 0)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	const window = 4 << 20
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range 2 {
		wg.Go(func() {
			buf := make([]byte, window)
			for off := int64(w) * window; off < src.Size(); off += 2 * window {
				n := min(window, src.Size()-off)
				if _, err := src.ReadAt(context.Background(), buf[:n], off); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start).Seconds(), errors.Join(errs...)
}

// inflateOnly inflates the plain gzip file at path once, from end to end,
// as its walk does, and returns the seconds it took: plain gzip's floor,
// since its inflate is serial.
func inflateOnly(path string) (float64, error) {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return 0, err
	}
	return time.Since(start).Seconds(), zr.Close()
}

// report prints the medians and the ratios the issue sets targets for.
func report(r *results) {
	med := func(name string) float64 { return run.MedianOf(r.Seconds[name]) }
	mbps := func(sec float64) float64 { return float64(r.PlainBytes) / 1e6 / sec }
	fmt.Printf("\n%s: %d rows, %d bytes", r.CSV, r.Rows, r.PlainBytes)
	for _, f := range r.Files[1:] {
		fmt.Printf("; %s %d bytes (%.2fx smaller)", f.Name, f.Bytes, float64(r.PlainBytes)/float64(f.Bytes))
	}
	fmt.Println()
	fmt.Println("\n| measure | median | MB/s of plain CSV |\n| --- | ---: | ---: |")
	for _, name := range []string{"build plain", "build plain --threads 1", "build bgzf", "build zstd", "build zstd64k", "build gzip", "decode-only bgzf", "decode-only zstd", "decode-only zstd64k", "decode-only gzip",
		"bgzip -d -@2", "pzstd -d -p2", "gzip -dc", "pzstd -3 -p2", "csvidx compress"} {
		fmt.Printf("| %s | %.3f s | %.0f |\n", name, med(name), mbps(med(name)))
	}
	for _, name := range []string{"get plain", "get plain (csvidx-codecs)", "get bgzf (csvidx-codecs)", "get bgzf (csvidx, re-exec)", "get zstd (csvidx-codecs)", "get zstd64k (csvidx-codecs)", "get gzip (csvidx-codecs)", "hello-world process"} {
		fmt.Printf("| %s | %.3f ms | |\n", name, 1000*med(name))
	}
	fmt.Println("\n| ratio | value | target |\n| --- | ---: | ---: |")
	for _, f := range []string{"bgzf", "zstd", "zstd64k"} {
		fmt.Printf("| build %s / (build plain + decode-only %s) | %.3f | ≤ 1.15 |\n", f, f, med("build "+f)/(med("build plain")+med("decode-only "+f)))
	}
	fmt.Printf("| build gzip / decode-only gzip (one inflate) | %.3f | ≤ 1.2 |\n", med("build gzip")/med("decode-only gzip"))
	fmt.Printf("| csvidx compress / pzstd -3 -p2, time | %.3f | ≤ 1.5 |\n", med("csvidx compress")/med("pzstd -3 -p2"))
	fmt.Printf("| csvidx compress / pzstd -3 -p2, bytes | %.3f | ≤ 1.05 |\n", float64(r.Files[3].Bytes)/float64(r.Files[2].Bytes))
	plain := r.Seconds["get plain"]
	fmt.Printf("| get bgzf / get plain, paired (csvidx-codecs) | %.3f | ≤ 1.5 |\n", run.PairedRatio(r.Seconds["get bgzf (csvidx-codecs)"], plain))
	fmt.Printf("| get bgzf / get plain, paired (through the re-exec) | %.3f | - |\n", run.PairedRatio(r.Seconds["get bgzf (csvidx, re-exec)"], plain))
	fmt.Printf("| get zstd (pzstd's frames) / get plain, paired | %.3f | - |\n", run.PairedRatio(r.Seconds["get zstd (csvidx-codecs)"], plain))
	fmt.Printf("| get zstd (csvidx compress's frames) / get plain, paired | %.3f | ≤ 1.2 |\n", run.PairedRatio(r.Seconds["get zstd64k (csvidx-codecs)"], plain))
	fmt.Printf("| get gzip (spans of 1 MiB) / get plain, paired | %.3f | ≤ 10 |\n", run.PairedRatio(r.Seconds["get gzip (csvidx-codecs)"], plain))
	fmt.Printf("| build gzip / its floor, max(one inflate, build plain --threads 1) | %.3f | - |\n",
		med("build gzip")/max(med("decode-only gzip"), med("build plain --threads 1")))
	codecsPlain := r.Seconds["get plain (csvidx-codecs)"]
	for _, f := range []string{"bgzf", "zstd64k", "gzip"} {
		kf := r.KeyFrames[f]
		piece := med("decode-only "+f) / float64(kf[1]) // on two cores, as a lookup's prefetch decodes
		if f == "gzip" {
			piece /= 2 // one inflate, on one core
		}
		floor := make([]float64, len(codecsPlain))
		for i, sec := range codecsPlain {
			floor[i] = sec + float64(kf[0])*piece
		}
		fmt.Printf("| get %s / its floor: get plain (csvidx-codecs) + the decoding of the %d frames of the key's rows (of %d), %.3f ms each | %.3f | - |\n",
			f, kf[0], kf[1], 1000*piece, run.PairedRatio(r.Seconds["get "+f+" (csvidx-codecs)"], floor))
	}
	fmt.Printf("| get plain: csvidx-codecs / csvidx, paired | %.3f | - |\n", run.PairedRatio(codecsPlain, plain))
	for _, f := range r.Files[1:] {
		target := "≤ 0.05"
		if f.Name == "gzip" {
			target = "≤ 0.5"
		}
		fmt.Printf("| %s: table bytes per row | %.4f | %s |\n", f.Name, float64(f.Table)/float64(r.Rows), target)
	}
}

// ordinaryKey returns the user_id (the second field) of the first row
// after the middle of the CSV at path, of size bytes, that has at most 50
// rows (csvgen makes heavy users too): an ordinary key.
func ordinaryKey(bin, path string, size int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, err := f.ReadAt(buf, size/2)
	if n == 0 {
		return "", err
	}
	lines := strings.Split(string(buf[:n]), "\n")
	for _, line := range lines[1 : len(lines)-1] {
		fields := strings.Split(line, ",")
		if len(fields) < 2 {
			continue
		}
		out, err := run.Output(bin, "get", path, "--count", fields[1])
		if err != nil {
			return "", err
		}
		if c := strings.Fields(out); len(c) == 2 && len(c[1]) <= 2 {
			return fields[1], nil
		}
	}
	return "", fmt.Errorf("no key of at most 50 rows after byte %d of %s", size/2, path)
}

// keyFrames returns, for each compressed file, how many of its frames (of
// plain gzip, spans between checkpoints) hold bytes of the rows whose
// user_id (the second field) is key, and how many it has: the pieces a get
// of key decodes, each whole, to check its checksum. The rows are found in
// the plain CSV by encoding/csv, the pieces by the source's Splits.
func keyFrames(r *results, key string) (map[string][2]int, error) {
	f, err := os.Open(r.CSV)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	cr.ReuseRecord, cr.FieldsPerRecord = true, -1
	var rows [][2]int64 // the key's rows' plain bytes
	for start := int64(0); ; {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		end := cr.InputOffset()
		if len(rec) > 1 && rec[1] == key {
			rows = append(rows, [2]int64{start, end})
		}
		start = end
	}
	out := map[string][2]int{}
	for _, fl := range r.Files[1:] {
		src, err := source.Open(fl.Path, 0)
		if err != nil {
			return nil, err
		}
		starts := src.Splits(1) // every frame's or checkpoint's plain start
		src.Close()
		pieces := map[int]bool{}
		for _, row := range rows {
			i := sort.Search(len(starts), func(i int) bool { return starts[i] > row[0] }) - 1
			for ; i < len(starts) && starts[i] < row[1]; i++ {
				pieces[i] = true
			}
		}
		out[fl.Name] = [2]int{len(pieces), len(starts)}
	}
	return out, nil
}
