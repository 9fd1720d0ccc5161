package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/csvidx/csvidx/scan/chunked"
)

// TestParallelGarbage builds random garbage over the characters that matter
// (quotes, delimiters, \n, \r) at chunk sizes of 1 to 40 bytes: wrong
// guesses are common, and every index must equal the sequential one, header
// counts included. The repairs must add up, or the repair path went untested.
// The inputs take turns through the records a chunk may hold (the plan's, or
// only 1 or 3, so that chunks stop early and the stitcher scans their rest,
// after right and wrong guesses) and through the pauses of the guessing (the
// plan's, at every wrong guess, so that chunks scanned in order mix with all
// the others, or never, so that every wrong guess is repaired); the chunks
// scanned in order must add up too.
func TestParallelGarbage(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 31))
	alphabet := []byte("ab1 ,\"\n\r")
	holds := []struct {
		name string
		tu   chunked.Tuning
	}{{"the plan's records a chunk", chunked.Tuning{}}, {"1 record a chunk", chunked.Tuning{ChunkRecords: 1}}, {"3 records a chunk", chunked.Tuning{ChunkRecords: 3}}}
	pauses := []struct {
		name string
		tu   chunked.Tuning
	}{{"the plan's pause", chunked.Tuning{}}, {"a pause at every wrong guess", chunked.Tuning{PauseAt: 1}}, {"no pause", chunked.Tuning{NeverPause: true}}}
	repairs, skipped, full, inOrder, builds := 0, 0, 0, 0, 0
	for i := 0; i < 300; i++ {
		// A clean header and first row: a first record with a lone \r, or
		// no row with the key column, is refused (see TestEdgeCases).
		data := make([]byte, 20+r.IntN(300))
		for j := range data {
			data[j] = alphabet[r.IntN(len(alphabet))]
		}
		data = append([]byte("a,b\na,b\n"), data...)
		p := writeCSV(t, string(data))
		want, _ := buildBytes(t, p, "1", i%2 == 0, Resources{Threads: 1})
		hold, pause := holds[i/3%3], pauses[i/9%3]
		for _, chunk := range []int{1, 2, 3, 5, 8, 13, 40} {
			tu := chunked.Tuning{ChunkBytes: chunk, ChunkRecords: hold.tu.ChunkRecords, PauseAt: pause.tu.PauseAt, NeverPause: pause.tu.NeverPause}
			got, st := buildBytes(t, p, "1", i%2 == 0, Resources{Threads: 2 + i%3}, tu)
			builds++
			if !bytes.Equal(got, want) {
				t.Fatalf("input %d (%q) at chunk size %d, %s, %s: the parallel index differs from the sequential one", i, data, chunk, hold.name, pause.name)
			}
			repairs += st.Repairs
			skipped += st.Skipped
			full += st.Full
			inOrder += st.InOrder
		}
	}
	t.Logf("%d parallel builds, %d repaired chunks, %d chunks inside a record, %d full chunks, %d scanned in order", builds, repairs, skipped, full, inOrder)
	if repairs < 400 || skipped < 400 || full < 400 || inOrder < 20 {
		t.Fatalf("only %d repairs, %d chunks inside a record, %d full chunks and %d scanned in order in %d builds: the repair path is not exercised", repairs, skipped, full, inOrder, builds)
	}
}

// TestParallelShortRows: rows of 4 bytes make a chunk's records outgrow its
// share of memory (a chunk holds rows of 8 bytes or more): every chunk stops
// at the records it may hold and the stitcher scans the rest of it, with the
// budget's own numbers (no test override). The index is the sequential one,
// at 2 and 5 threads (as many as the budget holds).
func TestParallelShortRows(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("k,v\n")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "%c,%d\n", 'a'+i%26, i%10)
	}
	p := writeCSV(t, b.String())
	want, _ := buildBytes(t, p, "k", false, Resources{Threads: 1})
	for _, threads := range []int{2, 5} {
		for _, limit := range []int64{32 << 20, 96 << 20} {
			got, st := buildBytes(t, p, "k", false, Resources{Threads: threads, MemLimit: limit, TmpDir: t.TempDir()})
			if !bytes.Equal(got, want) {
				t.Fatalf("%d threads, limit %d: the index differs from the sequential one", threads, limit)
			}
			// The last chunk may be short enough to finish.
			// Or left to the stitcher while it scanned the rest of another.
			if st.Chunks < 2 || st.Full+st.InOrder < st.Chunks-1 || st.Repairs != 0 {
				t.Fatalf("%d threads, limit %d: %d chunks, %d full, %d only in order, %d repaired; want every chunk but the last full or only in order, none repaired", threads, limit, st.Chunks, st.Full, st.InOrder, st.Repairs)
			}
		}
	}
}

// TestParallelStructured builds generated CSVs with multi-line fields, CRLF,
// blank and short rows, with and without an unterminated last row, at 2 and
// 5 threads, chunk sizes from 7 bytes to megabytes, and with spills.
func TestParallelStructured(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 32))
	for i := 0; i < 8; i++ {
		g := makeCSV(r, 300+r.IntN(2000), 1, ',', true, i%2 == 1)
		p := writeCSV(t, g.data)
		want, _ := buildBytes(t, p, "1", false, Resources{Threads: 1})
		for _, threads := range []int{2, 5} {
			for _, chunk := range []int{7, 64, 1000, 1 << 20} {
				for _, limit := range []int64{0, 64} {
					name := fmt.Sprintf("csv%d/threads=%d/chunk=%d/limit=%d", i, threads, chunk, limit)
					got, _ := buildBytes(t, p, "1", false, Resources{Threads: threads, MemLimit: limit, TmpDir: t.TempDir()}, chunked.Tuning{ChunkBytes: chunk})
					if !bytes.Equal(got, want) {
						t.Fatalf("%s: the index differs from the sequential one", name)
					}
				}
			}
		}
		tune(t, chunked.Tuning{ChunkBytes: 50})
		res, err := Verify(context.Background(), p, &VerifyOptions{Resources: Resources{Threads: 3}})
		if err == nil {
			t.Fatalf("Verify of a CSV with no index: %+v", res)
		}
	}
}

// TestParallelNoRepairs: on an ordinary CSV, whose newlines all end records,
// every guess is right, and every chunk's records fit its share of memory. A
// repair, or a chunk finished by the stitcher, would be a speed regression.
func TestParallelNoRepairs(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("id,user,comment\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "%d,u%d,\"a, \"\"quoted\"\" comment\"\n", i, i%977)
	}
	// Rows of 20 bytes: at chunk sizes of 20 bytes' multiples every
	// boundary is a record's start, and the guess must take it.
	var w bytes.Buffer
	w.WriteString("id,user,comment\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&w, "%06d,u%03d,\"c,d\"\n", i, i%977)
	}
	for _, c := range []struct {
		data   string
		chunks []int
	}{{b.String(), []int{100, 4096, 65536}}, {w.String(), []int{100, 4000}}} {
		p := writeCSV(t, c.data)
		want, _ := buildBytes(t, p, "user", false, Resources{Threads: 1})
		for _, chunk := range c.chunks {
			got, st := buildBytes(t, p, "user", false, Resources{Threads: 2}, chunked.Tuning{ChunkBytes: chunk})
			if !bytes.Equal(got, want) {
				t.Fatalf("chunk %d: the index differs from the sequential one", chunk)
			}
			if st.Repairs != 0 || st.Full != 0 || st.InOrder != 0 || st.Chunks < 2 {
				t.Fatalf("chunk %d: %d chunks, %d repairs, %d full, %d in order; want several chunks, no repair, none full or in order", chunk, st.Chunks, st.Repairs, st.Full, st.InOrder)
			}
		}
	}
}

// TestParallelMultilineGuesses: in a CSV with a multi-line field in half of
// its rows, a boundary's first newline is often inside quotes; the guess
// that reads the bytes both ways, and takes the reading whose next records
// have the usual number of fields, is right nearly always (the first
// newline alone: about three times in five).
func TestParallelMultilineGuesses(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 35))
	var b bytes.Buffer
	b.WriteString("id,user,ts,comment\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "%d,u%d,2024-01-01T00:00:%02d,", i, i%977, i%60)
		switch r.IntN(4) {
		case 0:
			b.WriteString("\"line one\nline two\"\n")
		case 1:
			b.WriteString("\"\nstarts with a break, \"\"quoted\"\"\"\n")
		default:
			b.WriteString("plain\n")
		}
	}
	p := writeCSV(t, b.String())
	want, _ := buildBytes(t, p, "user", false, Resources{Threads: 1})
	for _, chunk := range []int{1000, 4096} {
		got, st := buildBytes(t, p, "user", false, Resources{Threads: 2}, chunked.Tuning{ChunkBytes: chunk})
		if !bytes.Equal(got, want) {
			t.Fatalf("chunk %d: the index differs from the sequential one", chunk)
		}
		if st.Repairs > st.Chunks/20 {
			t.Fatalf("chunk %d: %d of %d chunks repaired; want nearly every guess right", chunk, st.Repairs, st.Chunks)
		}
		t.Logf("chunk %d: %d chunks, %d repaired, %d only in order", chunk, st.Chunks, st.Repairs, st.InOrder)
	}
}

// hostileRows writes n records whose quoted third field holds eight lines
// that look like records themselves: eight newlines in nine are inside
// quotes, and a guess at one of them parses on as if it were not.
func hostileRows(b *bytes.Buffer, n int) {
	for i := 0; i < n; i++ {
		fmt.Fprintf(b, "%d,u%d,\"", i, i%97)
		for j := 0; j < 8; j++ {
			fmt.Fprintf(b, "%d,f%d,\"\"x\"\"\n", 8*i+j, j)
		}
		b.WriteString("\"\n")
	}
}

// TestParallelWrongGuessesPause: on a file whose newlines are mostly inside
// quotes, nearly every guess is wrong; once pauseAt of the last 16 are, the workers
// only guess where chunks start and the stitcher scans the chunks in order,
// checking the guesses. Where the file turns ordinary, right guesses resume
// the scanning from guesses. The index is the sequential one throughout.
func TestParallelWrongGuessesPause(t *testing.T) {
	const chunk, pauseAt = 1000, 12 // pauseAt as the plan's
	tu := chunked.Tuning{ChunkBytes: chunk, PauseAt: pauseAt}
	var b bytes.Buffer
	b.WriteString("id,key,note\n")
	hostileRows(&b, 5000)
	hostile := b.Len() / chunk // chunks of the hostile part
	p := writeCSV(t, b.String())
	want, _ := buildBytes(t, p, "key", false, Resources{Threads: 1})
	got, st := buildBytes(t, p, "key", false, Resources{Threads: 2}, tu)
	if !bytes.Equal(got, want) {
		t.Fatal("hostile file: the index differs from the sequential one")
	}
	// Repaired: at most the first pauseAt wrong guesses and the chunks in
	// flight then; four right guesses in a row (resuming) (each about one in
	// twelve here) would cost as many again. Without the pause, one chunk in three or more.
	if st.InOrder < st.Chunks*3/4 || st.Repairs > 2*(pauseAt+8) {
		t.Fatalf("hostile file: %d chunks, %d repaired, %d in order; want nearly all in order, at most %d repaired", st.Chunks, st.Repairs, st.InOrder, 2*(pauseAt+8))
	}
	t.Logf("hostile: %d chunks, %d repaired and %d in order", st.Chunks, st.Repairs, st.InOrder)

	for i := 0; i < 100000; i++ { // then an ordinary stretch
		fmt.Fprintf(&b, "%d,u%d,plain\n", i, i%97)
	}
	p = writeCSV(t, b.String())
	want, _ = buildBytes(t, p, "key", false, Resources{Threads: 1})
	got, st = buildBytes(t, p, "key", false, Resources{Threads: 3}, tu)
	if !bytes.Equal(got, want) {
		t.Fatal("hostile, then ordinary: the index differs from the sequential one")
	}
	// The ordinary stretch is mostly scanned by the workers (its chunks
	// are left to the stitcher only while it scans one, a chunk in three).
	if ordinary := st.Chunks - hostile; st.InOrder > hostile+ordinary/2 || st.Repairs > 2*(pauseAt+8) {
		t.Fatalf("hostile, then ordinary: %d chunks (%d hostile), %d repaired, %d in order; want the scanning from guesses resumed in the ordinary part, and right there", st.Chunks, hostile, st.Repairs, st.InOrder)
	}
	t.Logf("hostile, then ordinary: %d chunks (%d hostile), %d repaired, %d in order", st.Chunks, hostile, st.Repairs, st.InOrder)
}

// TestParallelErrors: an error in the middle of a parallel scan (the spill
// directory is missing; the context is cancelled) stops every worker and
// comes back, with no temporary file left and the old index kept.
func TestParallelErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 33))
	g := makeCSV(r, 3000, 1, ',', true, false)
	p := writeCSV(t, g.data)
	build(t, p, &BuildOptions{Key: "1"})
	old, _ := os.ReadFile(DefaultIndexPath(p))

	missing := filepath.Join(t.TempDir(), "gone")
	tune(t, chunked.Tuning{ChunkBytes: 100})
	_, err := Build(context.Background(), p, &BuildOptions{Key: "1", Resources: Resources{Threads: 3, MemLimit: 1, TmpDir: missing}})
	if err == nil {
		t.Fatal("a build that cannot spill succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = Build(ctx, p, &BuildOptions{Key: "1", Resources: Resources{Threads: 3},
		Progress: func(done, total int64) {
			if calls++; calls == 50 {
				cancel()
			}
		}})
	if err != context.Canceled {
		t.Fatalf("cancelled parallel build = %v", err)
	}
	if now, _ := os.ReadFile(DefaultIndexPath(p)); !bytes.Equal(now, old) {
		t.Fatal("a failed build changed the index")
	}
	checkOnlyFiles(t, p)
}

// TestParallelMemoryPerChunk: the scan keeps nothing per chunk, so a file
// of any size scans in fixed memory. It builds the same CSV in chunks of 64
// and of 256 bytes (about 33,000 and 8,000) and compares the heap in use
// once the scan is over: the records are the same, and whatever is kept per
// chunk (a channel each cost 3 MiB per 17,000 chunks at 100M rows, past the
// memory limit; an arena of its own, 4 KiB each) shows as the difference.
func TestParallelMemoryPerChunk(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("id,key\n")
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, "%d,k%d\n", i, i%1000)
	}
	p := filepath.Join(t.TempDir(), "c.csv")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	heapAfterScan := func(chunk int) uint64 {
		var peak uint64
		progress := func(done, total int64) {
			if done == total {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		out := filepath.Join(t.TempDir(), "i.csvidx")
		tune(t, chunked.Tuning{ChunkBytes: chunk})
		_, err := Build(context.Background(), p, &BuildOptions{Key: "key", IndexPath: out, Progress: progress,
			Resources: Resources{Threads: 2}})
		if err != nil {
			t.Fatal(err)
		}
		return peak
	}
	few, many := heapAfterScan(256), heapAfterScan(64)
	if many > few+1<<20 {
		t.Errorf("heap after the scan: %d bytes in 64-byte chunks, %d in 256-byte ones: the scan keeps memory per chunk", many, few)
	}
}
