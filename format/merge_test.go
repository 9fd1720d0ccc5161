package format

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// drainBatches reads b to its end, copying every batch (a batch is valid
// only until the next call), and returns the records, the size of every
// batch and the error that ended it, if any.
func drainBatches(b Batches) (recs []sorter.Record, sizes []int, err error) {
	for {
		batch, err := b.Batch()
		if err != nil {
			return recs, sizes, err
		}
		if batch == nil {
			return recs, sizes, nil
		}
		recs = append(recs, batch...)
		sizes = append(sizes, len(batch))
	}
}

// maskedOracle returns recs with their hashes masked by mask, sorted by
// (masked hash, offset): what a masked cursor must yield.
func maskedOracle(recs []sorter.Record, mask uint64) []sorter.Record {
	out := make([]sorter.Record, len(recs))
	for i, rc := range recs {
		out[i] = sorter.Record{Hash: rc.Hash & mask, Offset: rc.Offset}
	}
	slices.SortFunc(out, compareRecords)
	return out
}

// topBits returns the mask that keeps the top n bits of a hash.
func topBits(n int) uint64 { return ^uint64(0) << uint(64-n) }

// interleavedGroups counts the masked hashes of recs (sorted by full hash)
// whose records, of two or more full hashes, are not in offset order when
// taken run after run: the groups a masked cursor must merge by offset.
func interleavedGroups(recs []sorter.Record, mask uint64) int {
	n := 0
	for i := 0; i < len(recs); {
		j, several, apart := i+1, false, false
		for ; j < len(recs) && recs[j].Hash&mask == recs[i].Hash&mask; j++ {
			several = several || recs[j].Hash != recs[j-1].Hash
			apart = apart || recs[j].Offset < recs[j-1].Offset
		}
		if several && apart {
			n++
		}
		i = j
	}
	return n
}

// groupedHashes returns the hashes of a format 1 file for the masked
// cursor: lone keys; small groups of 2 to 12 hashes that share their top
// 32 bits, with 1 to 6 rows each; a group of 5 hashes of 3000 rows each,
// whose merge spans pages and batches; one hash of 10000 rows, a group of
// one hash longer than a batch; and hashes at both extremes.
func groupedHashes(r *rand.Rand) []uint64 {
	var hs []uint64
	for range 3000 {
		hs = append(hs, r.Uint64())
	}
	for range 400 {
		top := r.Uint64() >> 32 << 32
		for range 2 + r.IntN(11) {
			hs = repeat(hs, top|r.Uint64N(1<<32), 1+r.IntN(6))
		}
	}
	top := r.Uint64() >> 32 << 32
	for range 5 {
		hs = repeat(hs, top|r.Uint64N(1<<32), 3000)
	}
	hs = repeat(hs, r.Uint64(), 10000)
	hs = repeat(repeat(hs, 0, 300), 1, 50)
	return repeat(repeat(hs, math.MaxUint64, 300), math.MaxUint64-1, 40)
}

// checkBatchSizes fails unless every batch holds 1 to MergeBatch records.
func checkBatchSizes(t *testing.T, what string, sizes []int) {
	t.Helper()
	for i, n := range sizes {
		if n < 1 || n > MergeBatch {
			t.Fatalf("%s: batch %d holds %d records, want 1 to %d", what, i, n, MergeBatch)
		}
	}
}

// checkEnded fails unless b, read to its end, says so again.
func checkEnded(t *testing.T, what string, b Batches) {
	t.Helper()
	if batch, err := b.Batch(); batch != nil || err != nil {
		t.Fatalf("%s: after the end, a batch of %d records, %v", what, len(batch), err)
	}
}

// TestMaskedCursor: NewMaskedCursor over a format 1 file yields every
// record once, its hash masked, in (masked hash, offset) order, exactly as
// the oracle (the records masked, then sorted) has them, in batches of 1
// to MergeBatch records; the file holds groups of several full hashes
// under one masked hash whose runs interleave by offset (the cursor's heap
// merge), small and across pages and batches, and a group of one hash
// longer than a batch. The masks keep all the bits, a fingerprint's 32 or
// 37, or only 4 (a few groups of thousands of hashes each). The files of
// every hash set of the reader's tests are read too.
func TestMaskedCursor(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 21))
	recs := recordsOf(r, groupedHashes(r), 1<<40)
	if n := interleavedGroups(recs, topBits(32)); n < 100 {
		t.Fatalf("only %d groups of several hashes interleave under 32 bits", n)
	}
	files := map[string]*indexFile{"grouped": buildFlat(t, recs)}
	for name, f := range flatFiles(t, r) {
		files[name] = f
	}
	for name, f := range files {
		for _, bits := range []int{64, 32, 37, 4} {
			mask := topBits(bits)
			what := fmt.Sprintf("%s, mask of %d bits", name, bits)
			c := NewMaskedCursor(NewReader(f.data, f.h, nil), mask)
			got, sizes, err := drainBatches(c)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			checkBatchSizes(t, what, sizes)
			want := maskedOracle(f.recs, mask)
			if !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("%s: %d records, want %d; they part at record %d", what, len(got), len(want), i)
			}
			checkEnded(t, what, c)
			if name == "grouped" {
				t.Logf("%s: %d records in %d batches, %d groups interleave", what, len(got), len(sizes), interleavedGroups(f.recs, mask))
			}
		}
	}
}

// TestMaskedCursorBatchEnds: groups that end exactly where a batch does,
// or one record past it, whether merged from several hashes or of one: the
// masked cursor goes on with the next group, and ends only at the file's
// end.
func TestMaskedCursorBatchEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 24))
	mask := topBits(32)
	for _, c := range []struct {
		name  string
		sizes []int // the rows of each hash of the first group, under the top 32 bits 0
		alone bool  // the group is the file's only one
	}{
		{"several hashes, a batch", []int{MergeBatch / 2, MergeBatch / 4, MergeBatch / 4}, false},
		{"several hashes, a batch and one", []int{MergeBatch / 2, MergeBatch/2 + 1}, false},
		{"several hashes, a batch less one", []int{1, MergeBatch - 2}, false},
		{"one hash, a batch", []int{MergeBatch}, false},
		{"one hash, a batch and one", []int{MergeBatch + 1}, false},
		{"several hashes, two batches, alone", []int{MergeBatch, MergeBatch}, true},
		{"one hash, a batch, alone", []int{MergeBatch}, true},
	} {
		var hs []uint64
		for i, n := range c.sizes {
			hs = repeat(hs, uint64(i+1), n)
		}
		// Then a group of two hashes and lone keys.
		if !c.alone {
			top := r.Uint64()>>32<<32 | 1<<32
			hs = repeat(repeat(hs, top|5, 40), top|9, 40)
			for range 100 {
				hs = append(hs, r.Uint64()|1<<32)
			}
		}
		f := buildFlat(t, recordsOf(r, hs, 1<<40))
		got, sizes, err := drainBatches(NewMaskedCursor(NewReader(f.data, f.h, nil), mask))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkBatchSizes(t, c.name, sizes)
		if want := maskedOracle(f.recs, mask); !slices.Equal(got, want) {
			t.Fatalf("%s: %d records in batches of %v, want %d", c.name, len(got), sizes, len(want))
		}
	}
}

// TestDenseCursor: NewDenseCursor over a format 2 file yields exactly the
// records packed, as (fingerprint as a masked hash, offset), a page at a
// time: one batch per record page, holding that page's records; then nil.
// The files are those of every hash set and F of the reader's tests.
func TestDenseCursor(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 22))
	for name, f := range denseFiles(t, r) {
		c := NewDenseCursor(NewReader(f.data, f.h, nil))
		got, sizes, err := drainBatches(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got, f.recs) {
			t.Fatalf("%s: %d records, not the %d packed, or in another order", name, len(got), len(f.recs))
		}
		if uint64(len(sizes)) != f.h.Pages {
			t.Fatalf("%s: %d batches for %d record pages", name, len(sizes), f.h.Pages)
		}
		for i, n := range sizes {
			if pg := uint64(i); n != f.firstOn(pg+1)-f.firstOn(pg) {
				t.Fatalf("%s: batch %d holds %d records, record page %d %d", name, i, n, pg, f.firstOn(pg+1)-f.firstOn(pg))
			}
		}
		checkEnded(t, name, c)
	}
}

// TestRecordBefore: records sort by hash, then offset, strictly.
func TestRecordBefore(t *testing.T) {
	rec := func(h, o uint64) sorter.Record { return sorter.Record{Hash: h, Offset: o} }
	for _, c := range []struct {
		a, b sorter.Record
		want bool
	}{
		{rec(1, 9), rec(2, 0), true},
		{rec(2, 0), rec(1, 9), false},
		{rec(5, 3), rec(5, 4), true},
		{rec(5, 4), rec(5, 3), false},
		{rec(5, 4), rec(5, 4), false},
		{rec(0, math.MaxUint64), rec(1, 0), true},
		{rec(math.MaxUint64, 0), rec(math.MaxUint64, 1), true},
		{rec(math.MaxUint64, 0), rec(0, 0), false},
	} {
		if got := RecordBefore(c.a, c.b); got != c.want {
			t.Errorf("RecordBefore(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// compaction returns the records of a main index of CSV bytes [0,
// mainEnd) and of a tail that rescanned the bytes from base on, to end:
// nMain rows in main (one at base, when main covers it), under keys of
// which some share their top 32 bits and a few are heavy; the tail has
// main's rows at or past base again, most under the same key, some under
// another, some no longer (a row made short), and nNew rows past mainEnd,
// most under main's keys. Both sorted by (hash, offset).
func compaction(r *rand.Rand, nMain, nNew int, mainEnd, base, end uint64) (main, tail []sorter.Record) {
	var keys []uint64
	for range 300 {
		top := r.Uint64() >> 32 << 32
		keys = append(keys, top|r.Uint64N(1<<32), top|r.Uint64N(1<<32))
	}
	for range 2000 {
		keys = append(keys, r.Uint64())
	}
	key := func() uint64 {
		if r.IntN(10) == 0 {
			return keys[r.IntN(3)] // heavy
		}
		return keys[r.IntN(len(keys))]
	}
	offs := uniqueOffsets(r, nMain, mainEnd)
	if nMain > 0 && base < mainEnd && !slices.Contains(offs, base) {
		offs[0] = base // a row at the base itself: shadowed
	}
	for _, o := range offs {
		main = append(main, sorter.Record{Hash: key(), Offset: o})
		if o >= base {
			switch r.IntN(5) {
			case 0: // short now
			case 1:
				tail = append(tail, sorter.Record{Hash: key(), Offset: o})
			default:
				tail = append(tail, main[len(main)-1])
			}
		}
	}
	for _, o := range uniqueOffsets(r, nNew, end-mainEnd) {
		h := key()
		if r.IntN(4) == 0 {
			h = r.Uint64()
		}
		tail = append(tail, sorter.Record{Hash: h, Offset: mainEnd + o})
	}
	slices.SortFunc(main, compareRecords)
	slices.SortFunc(tail, compareRecords)
	return main, tail
}

// mergeOracle returns what a compaction of main and tail at base must
// pack, masked by mask and sorted, and how many of main's records the tail
// shadows (those at base or past it).
func mergeOracle(main, tail []sorter.Record, base, mask uint64) ([]sorter.Record, uint64) {
	var kept []sorter.Record
	shadowed := uint64(0)
	for _, rc := range main {
		if rc.Offset >= base {
			shadowed++
			continue
		}
		kept = append(kept, rc)
	}
	return maskedOracle(append(kept, tail...), mask), shadowed
}

// mainCursor returns the cursor a compaction reads main through: a dense
// one of a format 2 file, a masked one of a format 1 file.
func mainCursor(rd *Reader, h *Header, mask uint64) Batches {
	if h.Dense() {
		return NewDenseCursor(rd)
	}
	return NewMaskedCursor(rd, mask)
}

// readBack returns the records of data, a format 2 file, read back with a
// Reader and a DenseCursor.
func readBack(t *testing.T, data []byte) (*Header, []sorter.Record) {
	t.Helper()
	h := decodeFile(t, data)
	got, _, err := drainBatches(NewDenseCursor(NewReader(data, h, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return h, got
}

// TestMergeDense: a compaction's merge, of a main index in format 1
// (read masked) or 2 (read dense) and a format 1 tail, leaves out main's
// records at or past the tail's base and returns how many (the shadowed
// count), and merges the tail's in: the packed file, read back with a
// Reader and a DenseCursor, holds exactly the oracle's merge (main's kept
// records and the tail's, masked to F bits and sorted), keys of main and
// tail sharing fingerprints included. Main and tail are several batches
// long; the base is inside main, past it, or 0, and main or the tail is
// empty.
func TestMergeDense(t *testing.T) {
	const (
		fpBits  = 32
		mainEnd = 1 << 24
		end     = mainEnd + 1<<22
	)
	mask := topBits(fpBits)
	for ci, c := range []struct {
		name        string
		nMain, nNew int
		base        uint64
	}{
		{"shadowed", 40000, 15000, mainEnd - mainEnd/8},
		{"nothing shadowed", 40000, 15000, mainEnd},
		{"all shadowed", 20000, 3000, 0},
		{"empty tail", 30000, 0, mainEnd},
		{"empty main", 0, 20000, 0},
	} {
		r := rand.New(rand.NewPCG(39, uint64(30+ci)))
		main, tail := compaction(r, c.nMain, c.nNew, mainEnd, c.base, end)
		want, wantShadowed := mergeOracle(main, tail, c.base, mask)
		tf := buildFlat(t, tail)
		for _, mf := range []*indexFile{buildFlat(t, main), buildDense(t, main, fpBits, mainEnd)} {
			what := fmt.Sprintf("%s, main in format %d", c.name, mf.h.FormatVersion())
			sink := &fileSink{}
			w := NewDensePacker(sink, nil, fpBits, uint64(len(want)), end)
			mrd := NewReader(mf.data, mf.h, nil)
			shadowed, err := MergeDense(context.Background(), mainCursor(mrd, mf.h, mask), NewMaskedCursor(NewReader(tf.data, tf.h, nil), mask), c.base, w)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if shadowed != wantShadowed {
				t.Fatalf("%s: %d records shadowed, want %d", what, shadowed, wantShadowed)
			}
			if err := w.Finish(&Header{Delim: ',', Scanned: end, Resume: end, Rows: 1 << 30}); err != nil {
				t.Fatal(err)
			}
			h, got := readBack(t, sink.bytes())
			if h.Records != uint64(len(want)) || !slices.Equal(got, want) {
				t.Fatalf("%s: the merged file has %d records (header: %d), want %d, or others", what, len(got), h.Records, len(want))
			}
			t.Logf("%s: %d + %d records, %d shadowed, %d packed on %d pages", what, len(main), len(tail), shadowed, len(got), h.Pages)
		}
	}
}

// TestMergeDenseBatchSizes: the merge's result does not depend on how its
// streams cut their records into batches: of one record, a few, about
// MergeBatch, or several times it, main or the tail ending first; the
// packed file holds exactly the oracle's merge, and the shadowed count is
// the oracle's.
func TestMergeDenseBatchSizes(t *testing.T) {
	const (
		mainEnd = 1 << 22
		end     = mainEnd + 1<<20
		base    = mainEnd - mainEnd/4
	)
	mask := topBits(32)
	r := rand.New(rand.NewPCG(39, 25))
	main, tail := compaction(r, 15000, 4000, mainEnd, base, end)
	want, wantShadowed := mergeOracle(main, tail, base, mask)
	main, tail = maskedOracle(main, mask), maskedOracle(tail, mask)
	for _, c := range []struct{ main, tail int }{
		{1, 1}, {1, MergeBatch}, {MergeBatch, 1}, {7, 3}, {MergeBatch - 1, MergeBatch + 1}, {3 * MergeBatch, 2}, {2, 3 * MergeBatch},
	} {
		what := fmt.Sprintf("batches of %d and %d", c.main, c.tail)
		sink := &fileSink{}
		w := NewDensePacker(sink, nil, 32, uint64(len(want)), end)
		shadowed, err := MergeDense(context.Background(), &recordStream{recs: main, size: c.main}, &recordStream{recs: tail, size: c.tail}, base, w)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := w.Finish(&Header{Delim: ',', Scanned: end, Resume: end, Rows: 1 << 30}); err != nil {
			t.Fatal(err)
		}
		if _, got := readBack(t, sink.bytes()); shadowed != wantShadowed || !slices.Equal(got, want) {
			t.Fatalf("%s: %d records, %d shadowed; want %d, %d shadowed", what, len(got), shadowed, len(want), wantShadowed)
		}
	}
}

// recordStream is a Batches of recs, handed out size at a time from a
// buffer it reuses. It counts its calls; it calls onCall (when set) with
// each call's number, and fails with err on call failAt (when set).
type recordStream struct {
	recs   []sorter.Record
	size   int
	buf    []sorter.Record
	calls  int
	onCall func(n int)
	failAt int
	err    error
}

func (s *recordStream) Batch() ([]sorter.Record, error) {
	s.calls++
	if s.onCall != nil {
		s.onCall(s.calls)
	}
	if s.calls == s.failAt {
		return nil, s.err
	}
	if len(s.recs) == 0 {
		return nil, nil
	}
	n := min(len(s.recs), s.size)
	s.buf = append(s.buf[:0], s.recs[:n]...)
	s.recs = s.recs[n:]
	return s.buf, nil
}

// runsOf3 returns n records in order, 3 offsets to a fingerprint of 32
// bits, at offsets 0 to n-1.
func runsOf3(n int) []sorter.Record {
	recs := make([]sorter.Record, n)
	for i := range recs {
		recs[i] = sorter.Record{Hash: uint64(i/3) << 32, Offset: uint64(i)}
	}
	return recs
}

// TestMergeDenseCancelled: a merge whose context is cancelled, before it
// starts or while it reads main, returns ctx.Err() and stops before main
// ends; main is 70 batches of MergeBatch records, more than the 64 packed
// batches between the merge's looks at its context. Left alone, the same
// merge packs every record.
func TestMergeDenseCancelled(t *testing.T) {
	const n = 70*MergeBatch + 123
	batches := (n + MergeBatch - 1) / MergeBatch
	merge := func(ctx context.Context, main *recordStream) (*fileSink, error) {
		sink := &fileSink{}
		w := NewDensePacker(sink, nil, 32, n, n)
		_, err := MergeDense(ctx, main, &recordStream{size: MergeBatch}, n, w)
		if err == nil {
			err = w.Finish(&Header{Delim: ',', Scanned: n, Resume: n, Rows: n})
		}
		return sink, err
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	main := &recordStream{recs: runsOf3(n), size: MergeBatch}
	if _, err := merge(cancelled, main); err != context.Canceled {
		t.Fatalf("cancelled before: %v, want %v", err, context.Canceled)
	}
	if main.calls >= batches {
		t.Fatalf("cancelled before: main read to its end (%d calls for %d batches)", main.calls, batches)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	main = &recordStream{recs: runsOf3(n), size: MergeBatch, onCall: func(k int) {
		if k == 5 {
			cancel()
		}
	}}
	if _, err := merge(ctx, main); err != ctx.Err() || err != context.Canceled {
		t.Fatalf("cancelled while reading main: %v, want %v", err, context.Canceled)
	}
	if main.calls >= batches {
		t.Fatalf("cancelled while reading main: main read to its end (%d calls for %d batches)", main.calls, batches)
	}

	main = &recordStream{recs: runsOf3(n), size: MergeBatch}
	sink, err := merge(context.Background(), main)
	if err != nil {
		t.Fatal(err)
	}
	if h := decodeFile(t, sink.bytes()); h.Records != n {
		t.Fatalf("not cancelled: %d records packed of %d", h.Records, n)
	}
}

// TestMergeDenseErrors: an error of either stream, on its first batch or a
// later one, is what the merge returns; so is the packer's, when the tail
// repeats a record that main keeps (below the base: the two are out of
// order).
func TestMergeDenseErrors(t *testing.T) {
	errMain, errTail := errors.New("main failed"), errors.New("tail failed")
	recs := runsOf3(3 * MergeBatch)
	var mainRecs, tailRecs []sorter.Record
	for _, rc := range recs {
		if rc.Offset%2 == 0 {
			mainRecs = append(mainRecs, rc)
		} else {
			tailRecs = append(tailRecs, rc)
		}
	}
	for _, c := range []struct {
		name       string
		main, tail *recordStream
		want       error
	}{
		{"main's first batch", &recordStream{recs: mainRecs, size: 1000, failAt: 1, err: errMain}, &recordStream{recs: tailRecs, size: 1000}, errMain},
		{"main's third batch", &recordStream{recs: mainRecs, size: 1000, failAt: 3, err: errMain}, &recordStream{recs: tailRecs, size: 1000}, errMain},
		{"tail's first batch", &recordStream{recs: mainRecs, size: 1000}, &recordStream{recs: tailRecs, size: 1000, failAt: 1, err: errTail}, errTail},
		{"tail's second batch", &recordStream{recs: mainRecs, size: 1000}, &recordStream{recs: tailRecs, size: 1000, failAt: 2, err: errTail}, errTail},
	} {
		w := NewDensePacker(&countSink{}, nil, 32, uint64(len(recs)), uint64(len(recs)))
		if _, err := MergeDense(context.Background(), c.main, c.tail, math.MaxUint64, w); err != c.want {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// The tail has main's record at offset 10 again, below the base.
	dup := append([]sorter.Record{{Hash: 3 << 32, Offset: 10}}, tailRecs...)
	slices.SortFunc(dup, compareRecords)
	w := NewDensePacker(&countSink{}, nil, 32, uint64(len(recs)), uint64(len(recs)))
	_, err := MergeDense(context.Background(), &recordStream{recs: mainRecs, size: 1000}, &recordStream{recs: dup, size: 1000}, math.MaxUint64, w)
	if err == nil || !regexp.MustCompile(`out of order: offset 10 after 10`).MatchString(err.Error()) {
		t.Errorf("a record twice: %v, want the packer's error", err)
	}
}

// cursorFiles returns a format 1 and a format 2 file of the same records,
// of 4 record pages or more, with keys that share 32 top bits (so that the
// masked cursor merges runs), and the mask of F = 32.
func cursorFiles(t *testing.T, r *rand.Rand) (flat, dense *indexFile, mask uint64) {
	var hs []uint64
	for range 200 {
		top := r.Uint64() >> 32 << 32
		for range 2 + r.IntN(4) {
			hs = repeat(hs, top|r.Uint64N(1<<32), 1+r.IntN(3))
		}
	}
	for range 2000 {
		hs = append(hs, r.Uint64())
	}
	recs := recordsOf(r, hs, 1<<30)
	flat, dense = buildFlat(t, recs), buildDense(t, recs, 32, 1<<30)
	if flat.h.Pages < 4 || dense.h.Pages < 4 {
		t.Fatalf("%d and %d record pages, want 4 or more", flat.h.Pages, dense.h.Pages)
	}
	return flat, dense, topBits(32)
}

// firstOn returns the index of the first of f's records on record page pg.
func (f *indexFile) firstOn(pg uint64) int {
	i, _ := slices.BinarySearch(f.page, pg)
	return i
}

// TestCursorPageError: a record page whose bytes were flipped (its
// checksum left as it was), met by a cursor, masked over format 1 or dense
// over format 2, is a *PageError (errors.As) of that cursor's Reader,
// naming the page; the records the cursor gave before it are the oracle's
// first, in format 2 exactly those of the pages before. A forged page
// whose checksum matches is one too: in format 1 a record twice, in format
// 2 two pages swapped (each with its number put right), which the dense
// cursor finds out of order across pages. Through MergeDense, the
// PageError of a damaged main is main's Reader's and that of a damaged
// tail the tail's, as compaction tells them apart.
func TestCursorPageError(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 23))
	flat, dense, mask := cursorFiles(t, r)
	cursor := func(f *indexFile, rd *Reader) Batches { return mainCursor(rd, f.h, mask) }
	for _, f := range []*indexFile{flat, dense} {
		want := maskedOracle(f.recs, mask)
		for _, pg := range []uint64{0, 1, f.h.Pages / 2, f.h.Pages - 1} {
			what := fmt.Sprintf("format %d, record page %d damaged", f.h.FormatVersion(), pg)
			data := slices.Clone(f.data)
			data[PageSize*(1+pg)+uint64(r.IntN(PageSize))] ^= 0x10
			rd := NewReader(data, f.h, nil)
			got, _, err := drainBatches(cursor(f, rd))
			checkPageError(t, what, err, rd, regexp.MustCompile(fmt.Sprintf(`^checksum mismatch in record page %d \(bytes %d to %d\)$`, pg, PageSize*(1+pg), PageSize*(2+pg))))
			if !slices.Equal(got, want[:min(len(got), len(want))]) {
				t.Fatalf("%s: the %d records before the error are not the oracle's first", what, len(got))
			}
			if f.h.Dense() && !slices.Equal(got, f.recs[:f.firstOn(pg)]) {
				t.Fatalf("%s: %d records before the error, want those of the %d pages before", what, len(got), pg)
			}
		}
	}

	// Forged pages, their checksums put right.
	data := slices.Clone(flat.data)
	copy(data[RecordPos(2*RecordsPerPage+41):][:RecordSize], data[RecordPos(2*RecordsPerPage+40):][:RecordSize])
	reseal(data, 2)
	rd := NewReader(data, flat.h, nil)
	_, _, err := drainBatches(NewMaskedCursor(rd, mask))
	checkPageError(t, "format 1, a record twice", err, rd, regexp.MustCompile(fmt.Sprintf(`^record %d, on record page 2, does not come after the record before it$`, 2*RecordsPerPage+41)))

	data = slices.Clone(dense.data)
	p1, p2 := data[PageSize*2:][:PageSize], data[PageSize*3:][:PageSize]
	tmp := slices.Clone(p1)
	copy(p1, p2)
	copy(p2, tmp)
	p1[densePageNo], p2[densePageNo] = 1, 2
	reseal(data, 1)
	reseal(data, 2)
	rd = NewReader(data, dense.h, nil)
	got, _, err := drainBatches(NewDenseCursor(rd))
	checkPageError(t, "format 2, pages 1 and 2 swapped", err, rd, regexp.MustCompile(`^record page 2 does not come after the page before$`))
	if n := dense.firstOn(1) + dense.firstOn(3) - dense.firstOn(2); len(got) != n {
		t.Fatalf("format 2, pages 1 and 2 swapped: %d records before the error, want %d", len(got), n)
	}

	// Through the merge: main damaged, or the tail.
	tail := buildFlat(t, recordsOf(r, repeat(nil, r.Uint64(), 2000), 1<<30))
	for _, mf := range []*indexFile{flat, dense} {
		for _, damaged := range []string{"main", "tail"} {
			what := fmt.Sprintf("merge, main in format %d, %s damaged", mf.h.FormatVersion(), damaged)
			mdata, tdata := mf.data, tail.data
			if damaged == "main" {
				mdata = slices.Clone(mdata)
				mdata[PageSize*(1+mf.h.Pages/2)+100] ^= 1
			} else {
				tdata = slices.Clone(tdata)
				tdata[PageSize*(1+tail.h.Pages/2)+100] ^= 1
			}
			mrd, trd := NewReader(mdata, mf.h, nil), NewReader(tdata, tail.h, nil)
			w := NewDensePacker(&countSink{}, nil, 32, mf.h.Records+tail.h.Records, 1<<30)
			_, err := MergeDense(context.Background(), cursor(mf, mrd), NewMaskedCursor(trd, mask), 1<<30, w)
			if damaged == "main" {
				checkPageError(t, what, err, mrd, pageRE(mf.h.Pages/2))
			} else {
				checkPageError(t, what, err, trd, pageRE(tail.h.Pages/2))
			}
		}
	}
}
