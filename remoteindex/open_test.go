package remoteindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/internal/tooltest"
	_ "github.com/csvidx/csvidx/source/compressed" // the backends of the compressed CSVs
	"github.com/csvidx/csvidx/source/remote"
	"github.com/csvidx/csvidx/source/remote/remotetest"
)

// testCSV returns a CSV of n rows keyed by user (the second field), some
// users heavy (hundreds of rows, over several index pages), some fields
// quoted, and its users.
func testCSV(n int, seed uint64) (string, []string) {
	r := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	b.WriteString("id,user,note\n")
	users := map[string]bool{}
	for i := range n {
		u := fmt.Sprintf("u%d", r.IntN(n/4+1))
		if i%11 == 0 {
			u = fmt.Sprintf("heavy%d", r.IntN(3))
		}
		users[u] = true
		note := fmt.Sprintf("note %d", i)
		if i%5 == 0 {
			note = fmt.Sprintf("\"a note, with a comma and\n a line end, %d\"", i)
		}
		fmt.Fprintf(&b, "%d,%s,%s\n", i, u, note)
	}
	var keys []string
	for u := range users {
		keys = append(keys, u)
	}
	return b.String(), keys
}

// served builds the index of data locally and serves the CSV and its index
// files at a.csv, a.csv.csvidx and its fence; it returns the server, the
// local CSV (whose index answers as the remote one must) and its index.
func served(t *testing.T, data string) (*remotetest.Server, *index.Index, string) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.csv")
	os.WriteFile(p, []byte(data), 0o644)
	if _, err := index.Build(context.Background(), p, &index.BuildOptions{Key: "user"}); err != nil {
		t.Fatal(err)
	}
	s := remotetest.NewServer(t)
	for _, name := range []string{"a.csv", "a.csv.csvidx", "a.csv.csvidx.fence"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		s.Put(name, b)
	}
	local, err := index.Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	return s, local, dir
}

// rows returns what get of keys prints, through get.
func rows(t *testing.T, get func([][]byte, func([]byte) error) error, keys ...string) string {
	t.Helper()
	var b bytes.Buffer
	bk := make([][]byte, len(keys))
	for i, k := range keys {
		bk[i] = []byte(k)
	}
	if err := get(bk, func(row []byte) error { b.Write(row); return nil }); err != nil {
		t.Fatalf("get %q: %v", keys, err)
	}
	return b.String()
}

// TestLookups: lookups through the remote index give the local index's
// rows, for ordinary, heavy and absent keys and a batch of every key; a
// cold lookup takes 3 round trips, another key at most 2 more, the batch
// at most 2; a new opening with the cache of the last reads no page again.
func TestLookups(t *testing.T) {
	data, keys := testCSV(60000, 1)
	s, local, _ := served(t, data)
	c := &remote.Client{}
	cache := t.TempDir()
	ctx := context.Background()
	x, err := Open(ctx, s.URLOf("a.csv"), &Options{Client: c, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	remoteGet := func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }
	trips := func() int64 { return c.Stats.RoundTrips.Load() }
	if got, want := rows(t, remoteGet, keys[0]), rows(t, local.Get, keys[0]); got != want || got == "" {
		t.Fatalf("key %q: %q, want %q", keys[0], got, want)
	}
	if n := trips(); n > 3 {
		t.Errorf("a cold lookup: %d round trips, want at most 3", n)
	}
	for _, k := range append([]string{"heavy0", "heavy2", "absent", ""}, keys[1:40]...) {
		before := trips()
		if got, want := rows(t, remoteGet, k), rows(t, local.Get, k); got != want {
			t.Fatalf("key %q: %d bytes, want %d", k, len(got), len(want))
		}
		if n := trips() - before; n > 2 {
			t.Errorf("key %q: %d round trips", k, n)
		}
	}
	before := trips()
	if got, want := rows(t, remoteGet, keys...), rows(t, local.Get, keys...); got != want {
		t.Fatalf("a batch of %d keys: %d bytes, want %d", len(keys), len(got), len(want))
	}
	if n := trips() - before; n > 2 {
		t.Errorf("a batch of %d keys: %d round trips, want at most 2", len(keys), n)
	}

	// Opened again on the same cache: every page is there.
	before = trips()
	y, err := Open(ctx, s.URLOf("a.csv"), &Options{Client: c, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	yGet := func(k [][]byte, fn func([]byte) error) error { return y.Get(ctx, k, fn) }
	if got, want := rows(t, yGet, keys[5]), rows(t, local.Get, keys[5]); got != want {
		t.Fatalf("key %q through the cache: %q, want %q", keys[5], got, want)
	}
	if n := trips() - before; n != 1 {
		t.Errorf("an opening and a lookup on a warm cache: %d round trips, want 1 (the rows')", n)
	}
}

// TestWarm: an index opened from the cache alone makes no request; its
// first lookup checks the CSV's version, by the rows' reads or by a read
// of its own (an absent key), before it gives a row: a CSV changed since
// is ErrStale, never an old answer; an index replaced since (the CSV the
// same) is opened again, and answers.
func TestWarm(t *testing.T) {
	data, keys := testCSV(40000, 4)
	s, local, _ := served(t, data)
	ctx := context.Background()
	cache := t.TempDir()
	c := &remote.Client{}
	trips := func() int64 { return c.Stats.RoundTrips.Load() }
	open := func() *Index {
		t.Helper()
		x, err := Open(ctx, s.URLOf("a.csv"), &Options{Client: c, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x
	}
	cold := open()
	rows(t, func(k [][]byte, fn func([]byte) error) error { return cold.Get(ctx, k, fn) }, keys[0])

	for i, k := range []string{keys[0], keys[1], "absent"} {
		before := trips()
		x := open()
		if n := trips() - before; n != 0 {
			t.Errorf("a warm opening: %d round trips", n)
		}
		got := rows(t, func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }, k)
		if want := rows(t, local.Get, k); got != want {
			t.Fatalf("key %q, warm: %q, want %q", k, got, want)
		}
		if n, want := trips()-before, []int64{1, 2, 2}[i]; n > want {
			t.Errorf("key %q, warm: %d round trips, want at most %d", k, n, want)
		}
	}

	// The CSV changed: every warm lookup refuses, whether it reads rows
	// or not.
	s.Put("a.csv", []byte(strings.Replace(data, "note 1", "NOTE 1", 1)))
	for _, k := range []string{keys[0], "absent"} {
		x := open()
		err := x.Get(ctx, [][]byte{[]byte(k)}, func([]byte) error { t.Fatalf("a row of a changed CSV"); return nil })
		if !errors.Is(err, index.ErrStale) {
			t.Errorf("key %q after the CSV changed: %v, want ErrStale", k, err)
		}
	}

	// The CSV as it was, indexed again: the warm opening reads the old
	// index's pages, is refused them, and opens the new one.
	s.Put("a.csv", []byte(data))
	_, _, dir := served(t, data)
	for _, name := range []string{"a.csv.csvidx", "a.csv.csvidx.fence"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		s.Put(name, b)
	}
	x := open()
	if got, want := rows(t, func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }, keys[7]), rows(t, local.Get, keys[7]); got != want {
		t.Fatalf("key %q after the index was built again: %q, want %q", keys[7], got, want)
	}
}

// TestChanges: an index replaced on the server between the opening and a
// lookup is opened again, and answers; a CSV replaced is ErrStale, never
// its new rows; a missing index says to build it.
func TestChanges(t *testing.T) {
	data, keys := testCSV(20000, 2)
	s, local, _ := served(t, data)
	ctx := context.Background()
	x, err := Open(ctx, s.URLOf("a.csv"), &Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	remoteGet := func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }
	// The same CSV indexed again: another index file (another generation),
	// with its fence.
	_, _, dir := served(t, data)
	for _, name := range []string{"a.csv.csvidx", "a.csv.csvidx.fence"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		s.Put(name, b)
	}
	if got, want := rows(t, remoteGet, keys[3]), rows(t, local.Get, keys[3]); got != want {
		t.Fatalf("key %q after the index was replaced: %q, want %q", keys[3], got, want)
	}

	// The CSV changed after the opening: rows not read yet are refused,
	// never read from the new version. (Rows read before, kept, are of the
	// version opened, which the index describes.)
	y, err := Open(ctx, s.URLOf("a.csv"), &Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	s.Put("a.csv", []byte(strings.Replace(data, "note 1", "NOTE 1", 1)))
	err = y.Get(ctx, [][]byte{[]byte(middleKey(data, keys))}, func([]byte) error { return nil })
	if !errors.Is(err, index.ErrStale) || !errors.Is(err, remote.ErrChanged) {
		t.Errorf("a lookup after the CSV changed: %v, want ErrStale", err)
	}
	if _, err := Open(ctx, s.URLOf("a.csv"), &Options{NoCache: true}); !errors.Is(err, index.ErrStale) {
		t.Errorf("an opening after the CSV changed: %v, want ErrStale", err)
	}

	if _, err := Open(ctx, s.URLOf("b.csv"), &Options{NoCache: true}); !errors.Is(err, index.ErrNoIndex) && err != nil && !strings.Contains(err.Error(), "404") {
		t.Errorf("no CSV, no index: %v", err)
	}
	s.Put("c.csv", []byte(data))
	if _, err := Open(ctx, s.URLOf("c.csv"), &Options{NoCache: true}); !errors.Is(err, index.ErrNoIndex) || !strings.Contains(err.Error(), "csvidx build") {
		t.Errorf("a CSV without an index: %v", err)
	}
}

// TestLookupsS3: the same lookups through s3:// URLs, on gofakes3 (behind
// the wrapper that enforces If-Match) and on versitygw, a real S3 server:
// the local index's rows, in 3 round trips cold.
func TestLookupsS3(t *testing.T) {
	data, keys := testCSV(30000, 3)
	_, local, dir := served(t, data)
	fake := remotetest.NewS3(t, "bucket")
	stores := map[string]*remote.S3Config{
		"gofakes3": {Endpoint: fake.URL, Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")},
	}
	if testing.Short() {
		t.Log("versitygw skipped in -short")
	} else {
		endpoint := remotetest.Versity(t, "AKIDVERSITY", "versitysecret", "bucket")
		stores["versitygw"] = &remote.S3Config{Endpoint: endpoint, Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDVERSITY", "versitysecret", "")}
	}
	ctx := context.Background()
	for name, cfg := range stores {
		t.Run(name, func(t *testing.T) {
			c := remote.NewS3Client(cfg)
			for _, f := range []string{"a.csv", "a.csv.csvidx", "a.csv.csvidx.fence"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Put(ctx, "s3://bucket/data/"+f, bytes.NewReader(b), int64(len(b)), remote.Precondition{}); err != nil {
					t.Fatal(err)
				}
			}
			x, err := Open(ctx, "s3://bucket/data/a.csv", &Options{Client: c, NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			get := func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }
			before := c.Stats.RoundTrips.Load()
			if got, want := rows(t, get, keys[0]), rows(t, local.Get, keys[0]); got != want || got == "" {
				t.Fatalf("key %q: %q, want %q", keys[0], got, want)
			}
			if n := c.Stats.RoundTrips.Load() - before; n > 2 {
				t.Errorf("the lookup after the open: %d round trips, want at most 2", n)
			}
			if got, want := rows(t, get, keys...), rows(t, local.Get, keys...); got != want {
				t.Fatalf("every key: %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// TestPrune: past the cache's limit, an opening removes the entries used
// least lately, never its own; an entry removed is fetched again.
func TestPrune(t *testing.T) {
	data, keys := testCSV(20000, 6)
	s, local, _ := served(t, data)
	s.Put("b.csv", []byte(data))
	for _, f := range []string{"a.csv.csvidx", "a.csv.csvidx.fence"} {
		b, _ := s.Get(f)
		s.Put("b"+f[1:], b)
	}
	ctx := context.Background()
	cache := t.TempDir()
	entries := func() int {
		n := 0
		ds, _ := os.ReadDir(cache)
		for _, d := range ds {
			if d.IsDir() {
				n++
			}
		}
		return n
	}
	look := func(name string, max int64) {
		t.Helper()
		x, err := Open(ctx, s.URLOf(name), &Options{CacheDir: cache, CacheMax: max})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		if got, want := rows(t, func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }, keys[1]), rows(t, local.Get, keys[1]); got != want {
			t.Fatalf("%s: %q, want %q", name, got, want)
		}
	}
	look("a.csv", 0)
	look("b.csv", 0)
	if n := entries(); n != 2 {
		t.Fatalf("%d entries, want 2", n)
	}
	look("a.csv", 1) // warm: no pruning
	s.Put("c.csv", []byte(data))
	for _, f := range []string{"a.csv.csvidx", "a.csv.csvidx.fence"} {
		b, _ := s.Get(f)
		s.Put("c"+f[1:], b)
	}
	look("c.csv", 1) // cold, over the limit: the others go
	if n := entries(); n != 1 {
		t.Errorf("%d entries after an opening over the limit, want 1 (its own)", n)
	}
	look("a.csv", 1) // fetched again
}

// middleKey returns a key of keys whose rows all lie past the first and
// before the last 128 KiB of data, which an opening reads: a lookup of it
// reads its rows anew.
func middleKey(data string, keys []string) string {
	for _, k := range keys {
		first := strings.Index(data, ","+k+",")
		last := strings.LastIndex(data, ","+k+",")
		if first > 128<<10 && last < len(data)-128<<10 {
			return k
		}
	}
	panic("no key in the middle")
}

// TestLookupsCompressed: a compressed CSV (BGZF, zstd in frames) served
// with its index, cold and warm, gives the plain file's rows, the index's
// table of frames read with its head, the key's frames in one round trip.
func TestLookupsCompressed(t *testing.T) {
	data, keys := testCSV(40000, 7)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.csv")
	os.WriteFile(plain, []byte(data), 0o644)
	if _, err := index.Build(context.Background(), plain, &index.BuildOptions{Key: "user"}); err != nil {
		t.Fatal(err)
	}
	local, err := index.Open(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	for name, cmd := range map[string]string{"bgzf": `bgzip -c "$IN" > "$OUT"`, "zstd": `split -b 50000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`} {
		t.Run(name, func(t *testing.T) {
			tool := map[string]string{"bgzf": "bgzip", "zstd": "zstd"}[name]
			comp := tooltest.Compress(t, []byte(data), tool, cmd, "a.csv.gz")
			if _, err := index.Build(context.Background(), comp, &index.BuildOptions{Key: "user"}); err != nil {
				t.Fatal(err)
			}
			s := remotetest.NewServer(t)
			for _, suffix := range []string{"", ".csvidx", ".csvidx.fence"} {
				b, err := os.ReadFile(comp + suffix)
				if err != nil {
					t.Fatal(err)
				}
				s.Put("a.csv.gz"+suffix, b)
			}
			cache := t.TempDir()
			ctx := context.Background()
			for _, round := range []string{"cold", "warm"} {
				c := &remote.Client{}
				x, err := Open(ctx, s.URLOf("a.csv.gz"), &Options{Client: c, CacheDir: cache})
				if err != nil {
					t.Fatalf("%s: %v", round, err)
				}
				for _, k := range []string{keys[0], keys[1], "absent"} {
					before := c.Stats.RoundTrips.Load()
					got := rows(t, func(k [][]byte, fn func([]byte) error) error { return x.Get(ctx, k, fn) }, k)
					if want := rows(t, local.Get, k); got != want {
						t.Fatalf("%s, key %q: %q, want %q", round, k, got, want)
					}
					if n := c.Stats.RoundTrips.Load() - before; n > 2 {
						t.Errorf("%s, key %q: %d round trips", round, k, n)
					}
				}
				x.Close()
			}
		})
	}
}

// TestCacheMaxFromEnv: CSVIDX_CACHE_MIB caps the cache in MiB; unset is
// the default (0); anything but a whole number from 1 is an error that
// names it.
func TestCacheMaxFromEnv(t *testing.T) {
	for v, want := range map[string]int64{"": 0, "64": 64 << 20, "1": 1 << 20} {
		t.Setenv(CacheEnv, v)
		if got, err := CacheMaxFromEnv(); err != nil || got != want {
			t.Errorf("%s=%q: %d, %v; want %d", CacheEnv, v, got, err, want)
		}
	}
	for _, v := range []string{"0", "-1", "1.5", "lots", "99999999999999"} {
		t.Setenv(CacheEnv, v)
		if _, err := CacheMaxFromEnv(); err == nil || !strings.Contains(err.Error(), CacheEnv) {
			t.Errorf("%s=%q: %v, want an error naming it", CacheEnv, v, err)
		}
	}
}
