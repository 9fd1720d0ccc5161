// Command remote measures csvidx on a CSV served over HTTP (issue 41), in
// one run, in turns. It generates an orders CSV (scripts/csvgen), builds
// csvidx-remote (go build -tags remote) and the default csvidx, builds the
// CSV's index by user_id locally, and serves the CSV and its index files
// from a small HTTP server in this process, on 127.0.0.1 (ranges and
// If-Match by http.ServeContent, strong ETags, the files warm in the page
// cache), which waits -delay before answering each request: a network's
// round trip. The csvidx processes are its clients. It times, as
// processes,
//
//   - csvidx-remote get URL KEY of an ordinary key (a few rows): cold, with
//     an empty cache directory (XDG_CACHE_HOME) each time, and with
//     --no-cache; warm, with the cache a get of the same key left; warm, of
//     another key each time (its index pages not cached); a batch of
//     -batch keys (--keys-file) cold; and, of the CSV's BGZF copy (bgzip
//     -@2) served with its index, the get of the key cold and warm;
//   - csvidx-remote get MANIFEST-URL KEY --with-file of an index over 4
//     files (the CSV four times), its manifest, parts table and index files
//     served beside them, and of the batch, cold (issue 42: target 5 round
//     trips, two more than one file's: the manifest, the files' ends);
//   - the local get of the same key and of the batch by csvidx, and a Go
//     hello-world process, for scale; the floor of a remote get is the
//     local one plus its round trips times the delay;
//
// and counts the requests the server answered for each, and the round
// trips it saw (waves: a request that arrives once the first answer of the
// current wave began starts a new one; the GETs the client holds back past
// its limit of GETs at once make waves too). It prints, for each, the
// median time, requests, round trips and time/delay, against the issue's
// targets: a cold get in 3 round trips and the transfer, a warm one in 2
// (1 when its pages are cached), a batch in about 3, not one per key; and
// where a remote get's time went: to its first request, in the server,
// between round trips (the client's work) and after the last answer.
// Every remote get must print what the local get of its keys prints.
//
// It also times -rounds builds of the index: csvidx-remote build URL
// --key user_id --index LOCAL, reading the CSV over HTTP with the delay
// and with none, against csvidx build of the local file (the issue's
// target: the remote build at least 80% as fast, a ratio of times of at
// most 1.25), and the floor of reading the CSV over HTTP: ranged GETs of
// 4 MiB, two at a time (a build's windows, one per worker), in process.
// The remotely built index must answer as the local one does.
//
// It prints tables, and the requests of each remote measure's first round
// (and of the round with the most round trips) by round trip, and writes
// the figures, with those requests (method, range, If-Match, status,
// bytes, times), as JSON (run.SaveResults).
//
//	go run ./scripts/remote -rows 2000000 -delay 20ms -gets 30
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// results is what the run measured.
type results struct {
	CSV        string               `json:"csv"`
	Rows       int                  `json:"rows"`
	CSVBytes   int64                `json:"csv_bytes"`
	IndexBytes map[string]int64     `json:"index_bytes"` // by served file
	DelayMS    float64              `json:"delay_ms"`
	Key        string               `json:"key"`
	KeyRows    int                  `json:"key_rows"`
	Batch      int                  `json:"batch_keys"`
	Seconds    map[string][]float64 `json:"seconds"`  // by measure, in rounds
	Requests   map[string][]int     `json:"requests"` // by remote measure, in rounds
	RoundTrips map[string][]int     `json:"round_trips"`
	BodyBytes  map[string][]int64   `json:"body_bytes"`
	FirstRound map[string][]request `json:"first_round"` // the requests of each remote measure's first round
	MostRound  map[string][]request `json:"most_round"`  // those of its first round with the most round trips
	// Phases splits each run of a remote measure, in milliseconds: from
	// the process's start to the first request's arrival; the waves' time
	// in the server, from each one's first arrival to its last answer's
	// end; the time between waves (the client's work, and the sending);
	// and from the last answer's end to the process's exit.
	Phases    map[string][]phases `json:"phases"`
	SameIndex bool                `json:"same_index"` // the remote build wrote the local build's bytes
	Measures  []string            `json:"measures"`   // in the order they were taken
	Targets   map[string]string   `json:"targets"`    // the round trips the issue allows, by remote get measure
}

// A job is one measure: a command run in turns.
type job struct {
	name   string
	target string // the round trips the target allows, or ""
	remote bool   // talks to the server: its requests are counted
	// prepare readies a run (the cache directory, the index removed...).
	prepare func() error
	// args returns the command of round round.
	args func(round int) []string
	// want returns what the command must print in round round, or "" for
	// no check.
	want func(round int) string
	// fn, when set, is timed in place of a command.
	fn func() (float64, error)
}

func main() {
	s := run.NewScript("remote")
	s.RowsFlag(2_000_000)
	s.WorkFlag("the directory to work in (a temporary one when empty)")
	delay := flag.Duration("delay", 20*time.Millisecond, "how long the server waits before answering each request: a round trip")
	gets := flag.Int("gets", 30, "get processes per measure, in turns")
	rounds := flag.Int("rounds", 5, "rounds of the builds, in turns")
	batch := flag.Int("batch", 1000, "keys of the batch lookup")
	budget := flag.Duration("budget", 30*time.Second, "a measure is run again, in its turn, only while its runs so far took less than this in all")
	flag.Parse()
	remove, err := s.Workspace("csvidx-remote-")
	if err != nil {
		log.Fatal(err)
	}
	defer remove()
	r, err := measure(s, *delay, *gets, *rounds, *batch, *budget)
	if err != nil {
		remove()
		log.Fatal(err)
	}
	report(r)
	name, err := run.SaveResults(s.Results, "remote", r.CSVBytes, r)
	if err != nil {
		remove()
		log.Fatal(err)
	}
	fmt.Println("wrote", name)
}

// measure readies the CSV, its index, the binaries and the server, and
// takes every measure.
func measure(s *run.Script, delay time.Duration, gets, rounds, batch int, budget time.Duration) (*results, error) {
	keysPath := filepath.Join(s.Work, "keys.txt")
	if err := s.GenerateCSV("-keys-out", keysPath, "-keys-n", fmt.Sprint(1+batch+gets)); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(keysPath)
	if err != nil {
		return nil, err
	}
	keys := strings.Fields(string(data))
	if len(keys) < 1+batch+gets {
		return nil, fmt.Errorf("csvgen wrote %d keys, want %d: more -rows", len(keys), 1+batch+gets)
	}
	key, others := keys[0], keys[1+batch:]
	batchPath := filepath.Join(s.Work, "batch.txt")
	if err := os.WriteFile(batchPath, []byte(strings.Join(keys[1:1+batch], "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	remoteBin := filepath.Join(s.Work, "csvidx-remote")
	cmd := exec.Command("go", "build", "-tags", "remote", "-o", remoteBin, "./cmd/csvidx")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build csvidx-remote: %v\n%s", err, out)
	}
	hello, err := run.HelloBinary(s.Work)
	if err != nil {
		return nil, err
	}
	if _, err := run.Output(s.Bin, "build", s.CSV, "--key", "user_id", "-q"); err != nil {
		return nil, err
	}
	// Its BGZF copy, indexed (by csvidx-remote, which reads what the
	// codecs build reads).
	gz := s.CSV + ".gz"
	if out, err := exec.Command("sh", "-c", fmt.Sprintf("bgzip -@2 -c %q > %q", s.CSV, gz)).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bgzip: %v\n%s", err, out)
	}
	if _, err := run.Output(remoteBin, "build", gz, "--key", "user_id", "-q"); err != nil {
		return nil, err
	}
	base := filepath.Base(s.CSV)
	served := []string{base, base + ".csvidx", base + ".csvidx.fence", base + ".csvidx.tail", base + ".gz", base + ".gz.csvidx", base + ".gz.csvidx.fence", base + ".gz.csvidx.tail"}
	// An index over many files (issue 42): the CSV four times (hard
	// links), its manifest and files served from many/.
	manyFiles, err := manyIndex(s.Bin, s.CSV, 4)
	if err != nil {
		return nil, err
	}
	served = append(served, manyFiles...)
	st, err := os.Stat(s.CSV)
	if err != nil {
		return nil, err
	}
	r := &results{CSV: s.CSV, Rows: s.Rows, CSVBytes: st.Size(), IndexBytes: map[string]int64{}, DelayMS: ms(delay), Key: key, Batch: batch,
		Seconds: map[string][]float64{}, Requests: map[string][]int{}, RoundTrips: map[string][]int{}, BodyBytes: map[string][]int64{}, FirstRound: map[string][]request{}, MostRound: map[string][]request{}, Phases: map[string][]phases{}, Targets: map[string]string{}}
	var warm []string
	for _, n := range served {
		p := filepath.Join(filepath.Dir(s.CSV), n)
		if st, err := os.Stat(p); err == nil {
			warm = append(warm, p)
			if n != base {
				r.IndexBytes[n] = st.Size()
			}
		}
	}
	srv, err := newServer(filepath.Dir(s.CSV), delay, served...)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	url := srv.urlOf(base)
	gzURL := srv.urlOf(base + ".gz")

	// What the local csvidx prints: what every remote get must print.
	local := func(args ...string) (string, error) {
		return run.OutputAllowing1(s.Bin, append([]string{"get", s.CSV}, args...)...)
	}
	wantKey, err := local(key)
	if err != nil {
		return nil, err
	}
	r.KeyRows = strings.Count(wantKey, "\n")
	wantBatch, err := local("--keys-file", batchPath)
	if err != nil {
		return nil, err
	}
	manyDir := filepath.Join(filepath.Dir(s.CSV), "many")
	manyURL := srv.urlOf("many/orders.idx")
	manyWant := func(args ...string) (string, error) {
		out, err := run.OutputAllowing1(s.Bin, append([]string{"get", filepath.Join(manyDir, "orders.idx"), "--with-file"}, args...)...)
		return strings.ReplaceAll(out, manyDir+"/", srv.urlOf("many/")), err
	}
	wantMany, err := manyWant(key)
	if err != nil {
		return nil, err
	}
	wantManyBatch, err := manyWant("--keys-file", batchPath)
	if err != nil {
		return nil, err
	}
	wantOthers := make([]string, gets)
	for i := range wantOthers {
		if wantOthers[i], err = local(others[i]); err != nil {
			return nil, err
		}
	}

	caches := filepath.Join(s.Work, "cache")
	fresh := func(name string) func() error {
		return func() error {
			dir := filepath.Join(caches, name)
			if err := os.RemoveAll(dir); err != nil {
				return err
			}
			return os.Setenv("XDG_CACHE_HOME", dir)
		}
	}
	kept := func(name string) func() error {
		return func() error { return os.Setenv("XDG_CACHE_HOME", filepath.Join(caches, name)) }
	}
	// The warm caches: what a get of the key leaves.
	for _, name := range []string{"warm-same", "warm-other"} {
		if err := fresh(name)(); err != nil {
			return nil, err
		}
		if _, err := run.Output(remoteBin, "get", url, key); err != nil {
			return nil, err
		}
	}
	if err := fresh("warm-bgzf")(); err != nil {
		return nil, err
	}
	if _, err := run.Output(remoteBin, "get", gzURL, key); err != nil {
		return nil, err
	}
	always := func(s string) func(int) string { return func(int) string { return s } }
	getJobs := []job{
		{name: "remote get, cold", target: "3", remote: true, prepare: fresh("cold"),
			args: func(int) []string { return []string{remoteBin, "get", url, key} }, want: always(wantKey)},
		{name: "remote get --no-cache, cold", target: "3", remote: true, prepare: fresh("none"),
			args: func(int) []string { return []string{remoteBin, "get", url, key, "--no-cache"} }, want: always(wantKey)},
		{name: "remote get, warm, its pages cached", target: "1", remote: true, prepare: kept("warm-same"),
			args: func(int) []string { return []string{remoteBin, "get", url, key} }, want: always(wantKey)},
		{name: "remote get, warm, another key", target: "2", remote: true, prepare: kept("warm-other"),
			args: func(round int) []string { return []string{remoteBin, "get", url, others[round]} }, want: func(round int) string { return wantOthers[round] }},
		{name: fmt.Sprintf("remote get --keys-file (%d keys), cold", batch), target: "≤ 3", remote: true, prepare: fresh("batch"),
			args: func(int) []string { return []string{remoteBin, "get", url, "--keys-file", batchPath} }, want: always(wantBatch)},
		{name: "remote get of its BGZF copy, cold", target: "3", remote: true, prepare: fresh("cold-bgzf"),
			args: func(int) []string { return []string{remoteBin, "get", gzURL, key} }, want: always(wantKey)},
		{name: "remote get of its BGZF copy, warm, its pages cached", target: "1", remote: true, prepare: kept("warm-bgzf"),
			args: func(int) []string { return []string{remoteBin, "get", gzURL, key} }, want: always(wantKey)},
		{name: "remote get of a manifest over 4 files, cold", target: "5", remote: true, prepare: fresh("many"),
			args: func(int) []string { return []string{remoteBin, "get", manyURL, key, "--with-file"} }, want: always(wantMany)},
		{name: fmt.Sprintf("remote get --keys-file (%d keys) of a manifest over 4 files, cold", batch), target: "≤ 5", remote: true, prepare: fresh("many-batch"),
			args: func(int) []string {
				return []string{remoteBin, "get", manyURL, "--keys-file", batchPath, "--with-file"}
			}, want: always(wantManyBatch)},
		{name: "local get", prepare: kept("local"),
			args: func(int) []string { return []string{s.Bin, "get", s.CSV, key} }, want: always(wantKey)},
		{name: fmt.Sprintf("local get --keys-file (%d keys)", batch), prepare: kept("local"),
			args: func(int) []string { return []string{s.Bin, "get", s.CSV, "--keys-file", batchPath} }, want: always(wantBatch)},
		{name: "hello-world process", prepare: kept("local"), args: func(int) []string { return []string{hello} }},
	}
	if err := run.Warm(warm...); err != nil {
		return nil, err
	}
	if err := runJobs(r, srv, gets, budget, getJobs); err != nil {
		return nil, err
	}

	// The builds, and the floor of reading the CSV over HTTP.
	builds := filepath.Join(s.Work, "builds")
	if err := os.MkdirAll(builds, 0o755); err != nil {
		return nil, err
	}
	localIdx, remoteIdx := filepath.Join(builds, "local.csvidx"), filepath.Join(builds, "remote.csvidx")
	fromScratch := func(idx string) func() error {
		return func() error {
			if idx != "" {
				if err := run.RemoveIndex(idx); err != nil {
					return err
				}
			}
			return run.Warm(warm...)
		}
	}
	noDelay := func(fn func() (float64, error)) func() (float64, error) {
		return func() (float64, error) {
			defer srv.setDelay(srv.setDelay(0))
			return fn()
		}
	}
	remoteBuild := func() (float64, error) {
		res, err := run.Timed(remoteBin, "build", url, "--key", "user_id", "--index", remoteIdx, "-q")
		return res.Seconds, err
	}
	fetch := func() (float64, error) { return fetchOnly(url, r.CSVBytes, 8) }
	// The local build while the CSV is fetched, at once, with no delay:
	// the work of a remote build, whose transfer, server and client, takes
	// the cores from the scan on this machine. Timed from the start of
	// both to the end of the later.
	alongside := func() (float64, error) {
		defer srv.setDelay(srv.setDelay(0))
		start := time.Now()
		fetched := make(chan error, 1)
		go func() {
			_, err := fetchOnly(url, r.CSVBytes, 8)
			fetched <- err
		}()
		_, err := run.Timed(s.Bin, "build", s.CSV, "--key", "user_id", "--index", localIdx, "-q")
		if ferr := <-fetched; err == nil {
			err = ferr
		}
		return time.Since(start).Seconds(), err
	}
	buildJobs := []job{
		{name: "local build", prepare: fromScratch(localIdx),
			args: func(int) []string {
				return []string{s.Bin, "build", s.CSV, "--key", "user_id", "--index", localIdx, "-q"}
			}},
		{name: "remote build", remote: true, prepare: fromScratch(remoteIdx), fn: remoteBuild},
		{name: "remote build, delay 0", remote: true, prepare: fromScratch(remoteIdx), fn: noDelay(remoteBuild)},
		{name: "fetch-only (4 MiB GETs, 8 at once)", remote: true, prepare: fromScratch(""), fn: fetch},
		{name: "fetch-only, delay 0", remote: true, prepare: fromScratch(""), fn: noDelay(fetch)},
		{name: "local build alongside fetch-only, delay 0", remote: true, prepare: fromScratch(localIdx), fn: alongside},
	}
	if err := runJobs(r, srv, rounds, budget, buildJobs); err != nil {
		return nil, err
	}
	// The index the remote build wrote answers as the local one.
	os.Setenv("XDG_CACHE_HOME", filepath.Join(caches, "local"))
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{key}, wantKey}, {[]string{"--keys-file", batchPath}, wantBatch}} {
		got, err := run.OutputAllowing1(remoteBin, append([]string{"get", url, "--index", remoteIdx}, c.args...)...)
		if err != nil {
			return nil, err
		}
		if got != c.want {
			return nil, fmt.Errorf("FAIL: get %s through the remotely built index printed %d bytes, the local get %d", strings.Join(c.args, " "), len(got), len(c.want))
		}
	}
	a, err := run.SHA256(localIdx)
	if err != nil {
		return nil, err
	}
	b, err := run.SHA256(remoteIdx)
	if err != nil {
		return nil, err
	}
	r.SameIndex = a == b
	return r, nil
}

// runJobs runs the jobs rounds times in turns, each after its prepare,
// checks what each prints, and records their times and, for those that
// talk to the server, the requests it answered and the round trips it saw.
// A job whose runs took budget or more in all is not run again: a lookup
// that makes a round trip per row takes minutes.
func runJobs(r *results, srv *server, rounds int, budget time.Duration, jobs []job) error {
	spent := make([]float64, len(jobs))
	return run.Turns(rounds, len(jobs), func(round, i int) error {
		if i == 0 && round%2 == 0 || i == len(jobs)-1 && round%2 == 1 {
			fmt.Printf("round %d of %d: %s...\n", round+1, rounds, jobs[0].name)
		}
		j := jobs[i]
		if spent[i] >= budget.Seconds() {
			return nil
		}
		defer func() {
			if spent[i] >= budget.Seconds() && round < rounds-1 {
				fmt.Printf("%s: %d runs took %.1f s, -budget %v: no more runs\n", j.name, len(r.Seconds[j.name]), spent[i], budget)
			}
		}()
		if j.prepare != nil {
			if err := j.prepare(); err != nil {
				return fmt.Errorf("%s: %w", j.name, err)
			}
		}
		mark, launched := srv.mark(), srv.now()
		var sec float64
		if j.fn != nil {
			var err error
			if sec, err = j.fn(); err != nil {
				return fmt.Errorf("%s: %w", j.name, err)
			}
		} else {
			args := j.args(round)
			res, err := run.Timed(args[0], args[1:]...)
			if err != nil {
				return fmt.Errorf("%s: %w", j.name, err)
			}
			if j.want != nil {
				if want := j.want(round); res.Stdout != want || want == "" {
					return fmt.Errorf("FAIL: %s (round %d) printed %d bytes, the local get %d: %s", j.name, round+1, len(res.Stdout), len(want), strings.Join(args[1:], " "))
				}
			}
			sec = res.Seconds
		}
		if r.Seconds[j.name] == nil {
			r.Measures = append(r.Measures, j.name)
			if j.target != "" {
				r.Targets[j.name] = j.target
			}
		}
		finished := srv.now()
		spent[i] += sec
		r.Seconds[j.name] = append(r.Seconds[j.name], sec)
		if !j.remote {
			return nil
		}
		reqs := srv.since(mark)
		r.Phases[j.name] = append(r.Phases[j.name], phasesOf(reqs, launched, finished))
		var body int64
		for _, q := range reqs {
			body += q.Bytes
		}
		r.Requests[j.name] = append(r.Requests[j.name], len(reqs))
		r.RoundTrips[j.name] = append(r.RoundTrips[j.name], len(waves(reqs)))
		r.BodyBytes[j.name] = append(r.BodyBytes[j.name], body)
		if round == 0 {
			r.FirstRound[j.name] = reqs
		}
		if len(waves(reqs)) > len(waves(r.MostRound[j.name])) {
			r.MostRound[j.name] = reqs
		}
		return nil
	})
}

// phases is where a run's time went: see results.Phases.
type phases struct {
	Startup float64 `json:"startup_ms"`
	Waves   float64 `json:"waves_ms"`
	Between float64 `json:"between_ms"`
	Exit    float64 `json:"exit_ms"`
}

// phasesOf splits the time from launched to finished (milliseconds since
// the server started) by the requests of the run.
func phasesOf(reqs []request, launched, finished float64) phases {
	ws := waves(reqs)
	if len(ws) == 0 {
		return phases{Startup: finished - launched}
	}
	p := phases{Startup: ws[0][0].StartMS - launched}
	last := 0.0
	for i, w := range ws {
		end := 0.0
		for _, q := range w {
			end = max(end, q.EndMS)
		}
		if i > 0 {
			p.Between += max(0, w[0].StartMS-last)
		}
		p.Waves += max(0, end-max(w[0].StartMS, last))
		last = max(last, end)
	}
	p.Exit = finished - last
	return p
}

// manyIndex makes an index over n copies of the CSV at csv (hard links,
// many/part-I.csv beside it), built by bin with its manifest at
// many/orders.idx, and returns the names of the files to serve, relative
// to the CSV's directory.
func manyIndex(bin, csv string, n int) ([]string, error) {
	dir := filepath.Join(filepath.Dir(csv), "many")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	for i := range n {
		name := fmt.Sprintf("part-%d.csv", i)
		if err := os.Link(csv, filepath.Join(dir, name)); err != nil {
			return nil, err
		}
		names = append(names, "many/"+name)
	}
	if _, err := run.Output(bin, "build", filepath.Join(dir, "part-*.csv"), "--key", "user_id", "--index", filepath.Join(dir, "orders.idx"), "-q"); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "orders.idx") {
			names = append(names, "many/"+e.Name())
		}
	}
	return names, nil
}
