package format

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
	"github.com/csvidx/csvidx/sorter"
)

// indexFile is a whole index file built in memory, with what the tests
// know of it: its records, as the writer took them, and its pages' first
// keys, as the writer handed them to the fence.
type indexFile struct {
	data  []byte
	h     *Header
	recs  []sorter.Record // sorted; in format 2 with hashes masked to F bits
	first []uint64        // the first key of every record page
	page  []uint64        // the record page that holds recs[i]
	mask  uint64          // what of a hash the file keeps: all of it, or its top F bits
}

// compareRecords orders records as the index does: by hash, then offset.
func compareRecords(a, b sorter.Record) int {
	return cmp.Or(cmp.Compare(a.Hash, b.Hash), cmp.Compare(a.Offset, b.Offset))
}

// addBatches hands recs to add in batches of varied sizes, so that batches
// end inside pages and across them.
func addBatches(t *testing.T, recs []sorter.Record, add func([]sorter.Record) error) {
	t.Helper()
	for i := 0; len(recs) > 0; i++ {
		n := min(len(recs), 1+(i*379+len(recs))%900)
		if err := add(recs[:n]); err != nil {
			t.Fatal(err)
		}
		recs = recs[n:]
	}
}

// decodeFile decodes the header of a file built in memory and checks its
// size.
func decodeFile(t *testing.T, data []byte) *Header {
	t.Helper()
	h, err := DecodeHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(data)) != h.Size() {
		t.Fatalf("%d bytes, the header says %d", len(data), h.Size())
	}
	return h
}

// buildFlat writes recs, sorted by (hash, offset) with no record twice, as a
// format 1 index file with a PageWriter.
func buildFlat(t *testing.T, recs []sorter.Record) *indexFile {
	t.Helper()
	f := &indexFile{recs: recs, mask: math.MaxUint64}
	sink := &fileSink{}
	w := NewPageWriter(sink, func(first uint64) error { f.first = append(f.first, first); return nil })
	addBatches(t, recs, w.AddBatch)
	h := &Header{Delim: ',', Scanned: 1 << 40, Resume: 1 << 40, Rows: uint64(len(recs)) + 10}
	if err := w.Finish(h); err != nil {
		t.Fatal(err)
	}
	f.data = sink.bytes()
	f.h = decodeFile(t, f.data)
	if f.h.Dense() || f.h.Records != uint64(len(recs)) || uint64(len(f.first)) != f.h.Pages {
		t.Fatalf("header %+v for %d records, %d first keys", f.h, len(recs), len(f.first))
	}
	for i := range recs {
		f.page = append(f.page, uint64(i)/RecordsPerPage)
	}
	return f
}

// buildDense packs recs, whose hashes are whole, as a format 2 index file
// of a CSV of size bytes with fingerprints of fpBits bits, as the pipeline
// does: the hashes masked to the fingerprint's bits, then sorted.
func buildDense(t *testing.T, recs []sorter.Record, fpBits int, size uint64) *indexFile {
	t.Helper()
	sink := &fileSink{}
	f := &indexFile{}
	p := NewDensePacker(sink, func(first uint64) error { f.first = append(f.first, first); return nil }, fpBits, uint64(len(recs)), size)
	f.mask = ^uint64(0) << p.Shift
	f.recs = make([]sorter.Record, len(recs))
	for i, rc := range recs {
		f.recs[i] = sorter.Record{Hash: rc.Hash & f.mask, Offset: rc.Offset}
	}
	slices.SortFunc(f.recs, compareRecords)
	addBatches(t, f.recs, p.AddBatch)
	h := &Header{Delim: ',', Scanned: size, Resume: size, Rows: uint64(len(recs)) + 10}
	if err := p.Finish(h); err != nil {
		t.Fatal(err)
	}
	f.data = sink.bytes()
	f.h = decodeFile(t, f.data)
	if !f.h.Dense() || int(f.h.FPBits) != fpBits || f.h.Records != uint64(len(recs)) || uint64(len(f.first)) != f.h.Pages {
		t.Fatalf("header %+v for %d records, F %d, %d first keys", f.h, len(recs), fpBits, len(f.first))
	}
	// Which page holds which record: the pages read whole, in order, must
	// give back the records.
	var back []sorter.Record
	for pg := range f.h.Pages {
		d, err := OpenDensePage(f.data[PageSize*(1+pg):][:PageSize], pg, fpBits, int(f.h.OffBits))
		if err != nil {
			t.Fatal(err)
		}
		n := len(back)
		if back, err = d.Records(back); err != nil {
			t.Fatal(err)
		}
		for range len(back) - n {
			f.page = append(f.page, pg)
		}
	}
	if !slices.Equal(back, f.recs) {
		t.Fatalf("the pages hold %d records, not the %d packed", len(back), len(f.recs))
	}
	return f
}

// want returns the oracle's offsets for hash h: those of the records whose
// hash is h (format 1) or has h's fingerprint (format 2), in order, and
// the records' first index.
func (f *indexFile) want(h uint64) ([]uint64, int) {
	key := h & f.mask
	i, _ := slices.BinarySearchFunc(f.recs, key, func(r sorter.Record, k uint64) int { return cmp.Compare(r.Hash, k) })
	var offs []uint64
	for j := i; j < len(f.recs) && f.recs[j].Hash == key; j++ {
		offs = append(offs, f.recs[j].Offset)
	}
	return offs, i
}

// onPage reports whether a record of h's oracle answer is on record page
// pg: a lookup of h must read that page.
func (f *indexFile) onPage(h, pg uint64) bool {
	offs, i := f.want(h)
	for j := range offs {
		if f.page[i+j] == pg {
			return true
		}
	}
	return false
}

// hashesOn returns the hash of every step-th record on record page pg.
func (f *indexFile) hashesOn(pg uint64, step int) []uint64 {
	var hs []uint64
	for i, p := range f.page {
		if p == pg && i%step == 0 {
			hs = append(hs, f.recs[i].Hash)
		}
	}
	return hs
}

// probes returns the hashes to look up in f: every hash of it, or a sample,
// its neighbours, hashes that share a kept hash's fingerprint but not its
// low bits, the pages' first keys and their neighbours, the extremes, and
// random ones; each once, and at most four of a fingerprint.
func (f *indexFile) probes(r *rand.Rand, most int) []uint64 {
	hs := []uint64{0, 1, 2, math.MaxUint64, math.MaxUint64 - 1, 1 << 63, 1<<63 - 1}
	step := max(1, len(f.recs)/most)
	for i := 0; i < len(f.recs); i += 1 + r.IntN(step) {
		k := f.recs[i].Hash
		hs = append(hs, k, k+1, k-1, k|^f.mask, k|r.Uint64()&^f.mask)
	}
	for _, k := range f.first {
		hs = append(hs, k, k-1, k+1)
	}
	for range most / 4 {
		hs = append(hs, r.Uint64())
	}
	seen, keys := map[uint64]bool{}, map[uint64]int{}
	return slices.DeleteFunc(hs, func(h uint64) bool {
		if seen[h] || keys[h&f.mask] == 4 {
			return true
		}
		seen[h] = true
		keys[h&f.mask]++
		return false
	})
}

// relies reports whether a lookup of h relies on record page pg, so that
// the damage of that page may fail it. In format 1 (see runFrom) those are
// the pages of the record before h's run, of the run and of the record
// after it, and the page before each, whose last record CheckPage reads
// (unchecked) to compare it with the page's first. In format 2 (see
// denseOffsets) they are the pages from the last one whose first key is
// below h's fingerprint, or 0, to the one after the run's last.
func (f *indexFile) relies(h, pg uint64) bool {
	offs, i := f.want(h)
	if !f.h.Dense() {
		for j := max(i-1, 0); j <= min(i+len(offs), len(f.recs)-1); j++ {
			if f.page[j] == pg || f.page[j] == pg+1 {
				return true
			}
		}
		return false
	}
	key := h & f.mask
	start := uint64(max(sort.Search(len(f.first), func(k int) bool { return f.first[k] >= key }), 1) - 1)
	end := start
	if len(offs) > 0 {
		end = f.page[i+len(offs)-1]
	}
	return start <= pg && pg <= end+1
}

// lookup returns the offsets Offsets passes for h from Locate's answer,
// and the size of every batch.
func lookup(rd *Reader, h uint64) (offs []uint64, batches []int, err error) {
	err = rd.Offsets(h, rd.Locate(h), func(b []uint64) error {
		offs = append(offs, b...)
		batches = append(batches, len(b))
		return nil
	})
	return offs, batches, err
}

// belowFinder is a fence as fence.Fence.Find answers: the last record page
// whose first key is below the key, or 0.
type belowFinder []uint64

func (f belowFinder) Find(key uint64) uint64 {
	i, _ := slices.BinarySearch(f, key) // the first page whose first key is key or more
	return uint64(max(i, 1) - 1)
}

// atOrBelowFinder is a fence as the Finder's comment words it: the last
// record page whose first key is the key or below, or 0.
type atOrBelowFinder []uint64

func (f atOrBelowFinder) Find(key uint64) uint64 {
	i := sort.Search(len(f), func(i int) bool { return f[i] > key })
	return uint64(max(i, 1) - 1)
}

// randomFinder is a fence that is wrong: it names a random page, at times
// one past the file's last, or MaxUint64.
type randomFinder struct {
	r     *rand.Rand
	pages uint64
}

func (f randomFinder) Find(uint64) uint64 {
	if f.r.IntN(20) == 0 {
		return math.MaxUint64
	}
	return f.r.Uint64N(f.pages + 2)
}

// readers returns readers of f without a fence, through right fences, and
// through a wrong one.
func (f *indexFile) readers(r *rand.Rand) map[string]*Reader {
	return map[string]*Reader{
		"no fence":          NewReader(f.data, f.h, nil),
		"fence":             NewReader(f.data, f.h, belowFinder(f.first)),
		"fence at or below": NewReader(f.data, f.h, atOrBelowFinder(f.first)),
		"wrong fence":       NewReader(f.data, f.h, randomFinder{r, f.h.Pages}),
	}
}

// uniqueOffsets returns n distinct offsets below size, in random order.
func uniqueOffsets(r *rand.Rand, n int, size uint64) []uint64 {
	seen := make(map[uint64]bool, n)
	offs := make([]uint64, 0, n)
	for len(offs) < n {
		if o := r.Uint64N(size); !seen[o] {
			seen[o] = true
			offs = append(offs, o)
		}
	}
	return offs
}

// recordsOf returns records of the hashes hs, each at a distinct offset
// below size, sorted by (hash, offset).
func recordsOf(r *rand.Rand, hs []uint64, size uint64) []sorter.Record {
	offs := uniqueOffsets(r, len(hs), size)
	recs := make([]sorter.Record, len(hs))
	for i, h := range hs {
		recs[i] = sorter.Record{Hash: h, Offset: offs[i]}
	}
	slices.SortFunc(recs, compareRecords)
	return recs
}

// repeat appends n copies of h to hs.
func repeat(hs []uint64, h uint64, n int) []uint64 {
	for range n {
		hs = append(hs, h)
	}
	return hs
}

// hashSets are the keys' hashes of the files the tests build: uniform,
// heavy keys that span pages (at the extremes too), clustered, piled at
// the extremes, one key, keys that share their top bits, and tiny files.
var hashSets = []struct {
	name string
	gen  func(r *rand.Rand) []uint64
}{
	{"empty", func(*rand.Rand) []uint64 { return nil }},
	{"one record", func(r *rand.Rand) []uint64 { return []uint64{r.Uint64()} }},
	{"one page", func(r *rand.Rand) []uint64 {
		var hs []uint64
		for range RecordsPerPage {
			hs = append(hs, r.Uint64())
		}
		return hs
	}},
	{"uniform", func(r *rand.Rand) []uint64 {
		var hs []uint64
		for range 6000 {
			hs = repeat(hs, r.Uint64(), 1+r.IntN(3))
		}
		return hs
	}},
	{"heavy", func(r *rand.Rand) []uint64 {
		hs := repeat(repeat(nil, 0, 700), math.MaxUint64, 900)
		for range 4 {
			hs = repeat(hs, r.Uint64(), 300+r.IntN(3000))
		}
		for range 4000 {
			hs = append(hs, r.Uint64())
		}
		return hs
	}},
	{"clustered", func(r *rand.Rand) []uint64 {
		var hs []uint64
		for range 8000 {
			hs = append(hs, r.Uint64()>>52<<52)
		}
		return hs
	}},
	{"extremes", func(r *rand.Rand) []uint64 {
		var hs []uint64
		for range 5000 {
			if r.IntN(2) == 0 {
				hs = append(hs, r.Uint64N(300))
			} else {
				hs = append(hs, math.MaxUint64-r.Uint64N(300))
			}
		}
		return hs
	}},
	{"one key", func(r *rand.Rand) []uint64 { return repeat(nil, r.Uint64(), 2000) }},
	{"shared top bits", func(r *rand.Rand) []uint64 {
		var hs []uint64
		for range 300 {
			top := r.Uint64() >> 32 << 32
			for range 1 + r.IntN(30) {
				hs = append(hs, top|r.Uint64N(1<<32))
			}
		}
		return hs
	}},
	{"consecutive", func(r *rand.Rand) []uint64 {
		base := r.Uint64() >> 32 << 32
		var hs []uint64
		for i := range uint64(6000) {
			hs = append(hs, base+i<<32)
		}
		return hs
	}},
}

// flatFiles returns format 1 files of every hash set: records sorted by
// (hash, offset), none twice.
func flatFiles(t *testing.T, r *rand.Rand) map[string]*indexFile {
	files := map[string]*indexFile{}
	for _, s := range hashSets {
		files["v1/"+s.name] = buildFlat(t, recordsOf(r, s.gen(r), 1<<40))
	}
	return files
}

// denseFiles returns format 2 files of every hash set, with fingerprints
// of 32 bits, of FingerprintBits's, of an odd width and of 64, and CSVs of
// several sizes.
func denseFiles(t *testing.T, r *rand.Rand) map[string]*indexFile {
	files := map[string]*indexFile{}
	for i, s := range hashSets {
		hs := s.gen(r)
		size := []uint64{1 << 40, 1 << 20, 1 << 33, 1 << 16}[i%4]
		recs := recordsOf(r, hs, size)
		for _, f := range []int{32, FingerprintBits(uint64(len(hs))) + 1, 37, 64} {
			name := fmt.Sprintf("v2/F%d/%s", f, s.name)
			if files[name] == nil {
				files[name] = buildDense(t, recs, f, size)
			}
		}
	}
	return files
}

// testFiles returns the files of both versions.
func testFiles(t *testing.T, r *rand.Rand) map[string]*indexFile {
	files := flatFiles(t, r)
	for name, f := range denseFiles(t, r) {
		files[name] = f
	}
	return files
}

// TestReaderOracle: on files of both versions and many spreads of hashes,
// Offsets from Locate's answer gives exactly the oracle's offsets, in order,
// for present, absent, heavy and extreme hashes, whether the Reader goes
// through no fence, a right one, or one that names random pages.
func TestReaderOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 1))
	for name, f := range testFiles(t, r) {
		t.Run(name, func(t *testing.T) {
			if f.h.Dense() {
				more := 0
				for pg := range f.h.Pages {
					if f.data[PageSize*(1+pg)+denseFlags] == flagContinues {
						more++
					}
				}
				t.Logf("%d records on %d pages, %d of which go on with their last run on the next", f.h.Records, f.h.Pages, more)
			}
			within := 0 // pages that a key's run fills and goes on from
			for pg := 1; pg < len(f.first); pg++ {
				if f.first[pg] == f.first[pg-1] {
					within++
				}
			}
			if strings.HasSuffix(name, "/heavy") && within == 0 {
				t.Fatal("no key's run fills a page and goes on")
			}
			probes := f.probes(r, 1500)
			for rname, rd := range f.readers(r) {
				for _, h := range probes {
					want, _ := f.want(h)
					got, batches, err := lookup(rd, h)
					if err != nil {
						t.Fatalf("%s: Offsets(%#x): %v", rname, h, err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s: Offsets(%#x) = %d offsets %v, want %d %v", rname, h, len(got), head(got), len(want), head(want))
					}
					for _, b := range batches {
						if !f.h.Dense() && b > OffsetsBatch {
							t.Fatalf("%s: Offsets(%#x) passed a batch of %d offsets", rname, h, b)
						}
					}
				}
			}
		})
	}
}

// head returns the first offsets of offs, for messages.
func head(offs []uint64) []uint64 { return offs[:min(len(offs), 8)] }

// TestReaderAccessors: HashAt, OffsetAt and FirstKeyAt read back what the
// writers wrote, and SearchKey is the hash itself in format 1 and its top F
// bits in format 2.
func TestReaderAccessors(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 2))
	for name, f := range testFiles(t, r) {
		rd := NewReader(f.data, f.h, nil)
		for pg, k := range f.first {
			if got := rd.FirstKeyAt(uint64(pg)); got != k {
				t.Fatalf("%s: FirstKeyAt(%d) = %#x, the writer's fence had %#x", name, pg, got, k)
			}
		}
		if !f.h.Dense() {
			for i, rc := range f.recs {
				if h, o := rd.HashAt(uint64(i)), rd.OffsetAt(uint64(i)); h != rc.Hash || o != rc.Offset {
					t.Fatalf("%s: record %d is %#x@%d, want %#x@%d", name, i, h, o, rc.Hash, rc.Offset)
				}
			}
		}
		for _, h := range f.probes(r, 100) {
			if got := rd.SearchKey(h); got != h&f.mask {
				t.Fatalf("%s: SearchKey(%#x) = %#x, want %#x", name, h, got, h&f.mask)
			}
		}
	}
}

// TestSearchKey: SearchKey by version and F, on hand-picked hashes.
func TestSearchKey(t *testing.T) {
	for _, c := range []struct {
		version uint32
		fpBits  uint8
		h, want uint64
	}{
		{VersionFlat, 0, 0x9dc02546854d5df1, 0x9dc02546854d5df1},
		{VersionFlat, 0, math.MaxUint64, math.MaxUint64},
		{VersionFlat, 0, 1, 1},
		{VersionDense, 32, 0x9dc02546854d5df1, 0x9dc0254600000000},
		{VersionDense, 32, math.MaxUint64, 0xffffffff00000000},
		{VersionDense, 32, 0xffffffff, 0},
		{VersionDense, 33, 0x9dc02546854d5df1, 0x9dc0254680000000},
		{VersionDense, 40, 0x0123456789abcdef, 0x0123456789000000},
		{VersionDense, 63, math.MaxUint64, math.MaxUint64 - 1},
		{VersionDense, 64, 0x0123456789abcdef, 0x0123456789abcdef},
	} {
		rd := NewReader(nil, &Header{Version: c.version, FPBits: c.fpBits}, nil)
		if got := rd.SearchKey(c.h); got != c.want {
			t.Errorf("version %d, F %d: SearchKey(%#x) = %#x, want %#x", c.version, c.fpBits, c.h, got, c.want)
		}
	}
}

// TestReaderLowerBound: in format 1, LowerBound and Locate give sort.Search's
// first record whose hash is h or more, through no fence, right fences and
// a wrong one; in format 2 without a fence, Locate gives the last page whose
// first key is below h's search key, or 0.
func TestReaderLowerBound(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 3))
	for name, f := range testFiles(t, r) {
		probes := f.probes(r, 3000)
		for rname, rd := range f.readers(r) {
			for _, h := range probes {
				if f.h.Dense() {
					if rname != "no fence" {
						continue
					}
					key := rd.SearchKey(h)
					want := uint64(max(sort.Search(len(f.first), func(i int) bool { return f.first[i] >= key }), 1) - 1)
					if got := rd.Locate(h); got != want {
						t.Fatalf("%s: Locate(%#x) = page %d, want %d", name, h, got, want)
					}
					continue
				}
				want := uint64(sort.Search(len(f.recs), func(i int) bool { return f.recs[i].Hash >= h }))
				if got := rd.LowerBound(h); got != want {
					t.Fatalf("%s, %s: LowerBound(%#x) = %d, want %d", name, rname, h, got, want)
				}
				if got := rd.Locate(h); got != want {
					t.Fatalf("%s, %s: Locate(%#x) = %d, want %d", name, rname, h, got, want)
				}
			}
		}
	}
}

// TestOffsetsBatch: in format 1 Offsets passes a key's offsets at most
// OffsetsBatch at a time, all of them, in order, around the batch's size.
func TestOffsetsBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 4))
	for _, n := range []int{1, OffsetsBatch - 1, OffsetsBatch, OffsetsBatch + 1, 2 * OffsetsBatch, 2*OffsetsBatch + 300} {
		key := r.Uint64()
		hs := repeat(nil, key, n)
		for range 1000 {
			hs = append(hs, r.Uint64())
		}
		f := buildFlat(t, recordsOf(r, hs, 1<<40))
		rd := NewReader(f.data, f.h, belowFinder(f.first))
		got, batches, err := lookup(rd, key)
		want, _ := f.want(key)
		if err != nil || !slices.Equal(got, want) || len(want) != n {
			t.Fatalf("%d records: %d offsets back, %v", n, len(got), err)
		}
		if len(batches) < (n+OffsetsBatch-1)/OffsetsBatch {
			t.Fatalf("%d records in %d batches", n, len(batches))
		}
		for _, b := range batches {
			if b > OffsetsBatch {
				t.Fatalf("%d records: batches %v, one above %d", n, batches, OffsetsBatch)
			}
		}
	}
}

// TestOffsetsFnError: an error fn returns ends Offsets, which returns it
// unchanged in both versions, on the first batch or a later one: not a
// PageError, even when it is another Reader's PageError.
func TestOffsetsFnError(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 5))
	key := r.Uint64()
	hs := repeat(nil, key, 3*OffsetsBatch+5) // three pages of format 2 at 40 bits an offset
	for range 2000 {
		hs = append(hs, r.Uint64())
	}
	recs := recordsOf(r, hs, 1<<40)
	other := NewReader(nil, &Header{}, nil)
	errStop := errors.New("stop")
	for _, f := range []*indexFile{buildFlat(t, recs), buildDense(t, recs, 32, 1<<40)} {
		if offs, i := f.want(key); f.h.Dense() && f.page[i] == f.page[i+len(offs)-1] {
			t.Fatal("the heavy key's run is on one page")
		}
		for _, c := range []struct {
			name   string
			err    error
			atCall int
		}{
			{"sentinel on the first batch", errStop, 1},
			{"sentinel on the second batch", errStop, 2},
			{"wrapped sentinel", fmt.Errorf("wrapped: %w", errStop), 2},
			{"another reader's PageError", &PageError{Reader: other, Msg: "record page 7 is bad"}, 1},
		} {
			for rname, rd := range f.readers(r) {
				calls := 0
				err := rd.Offsets(key, rd.Locate(key), func([]uint64) error {
					if calls++; calls == c.atCall {
						return c.err
					}
					return nil
				})
				var pe *PageError
				switch {
				case err != c.err:
					t.Errorf("version %d, %s, %s: Offsets returned %v, want %v", f.h.Version, c.name, rname, err, c.err)
				case calls != c.atCall:
					t.Errorf("version %d, %s, %s: fn called %d times after it failed on call %d", f.h.Version, c.name, rname, calls, c.atCall)
				case errors.As(err, &pe) && pe.Reader == rd:
					t.Errorf("version %d, %s, %s: fn's error became the reader's PageError", f.h.Version, c.name, rname)
				}
			}
		}
	}
}

// pageRE returns a pattern that matches a message naming record page pg.
func pageRE(pg uint64) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(`record page %d\b`, pg))
}

// checkPageError fails unless err is a PageError of rd, which is
// ErrCorrupt, whose message matches re (when not nil).
func checkPageError(t *testing.T, what string, err error, rd *Reader, re *regexp.Regexp) {
	t.Helper()
	var pe *PageError
	switch {
	case err == nil:
		t.Fatalf("%s: no error", what)
	case !errors.As(err, &pe):
		t.Fatalf("%s: %v (%T), not a *PageError", what, err, err)
	case pe.Reader != rd:
		t.Fatalf("%s: a PageError of another Reader: %v", what, err)
	case !errors.Is(err, ErrCorrupt):
		t.Fatalf("%s: %v is not ErrCorrupt", what, err)
	case re != nil && !re.MatchString(pe.Msg):
		t.Fatalf("%s: %q does not match %q", what, pe.Msg, re)
	}
}

// checkPage checks record page pg of rd in its version: CheckPage in
// format 1, DensePageAt in format 2.
func checkPage(rd *Reader, h *Header, pg uint64) error {
	if h.Dense() {
		_, err := rd.DensePageAt(pg)
		return err
	}
	return rd.CheckPage(pg)
}

// checkDamagedLookups looks up probes in data, a damaged copy of f's file
// whose record page bad is what is damaged, through every kind of fence:
// each lookup gives an error, a PageError of its reader, or exactly the
// oracle's answer; a lookup of a hash with a record on page bad gives an
// error, and through a right fence, which leaves no unchecked page to
// search, only a lookup that relies on page bad does. It returns how many
// lookups failed.
func checkDamagedLookups(t *testing.T, what string, f *indexFile, data []byte, bad uint64, probes []uint64, r *rand.Rand) int {
	t.Helper()
	failed := 0
	damaged := *f
	damaged.data = data
	for rname, rd := range damaged.readers(r) {
		for _, h := range probes {
			got, _, err := lookup(rd, h)
			if err != nil {
				checkPageError(t, fmt.Sprintf("%s, %s: Offsets(%#x)", what, rname, h), err, rd, nil)
				if rname == "fence" && !f.relies(h, bad) {
					t.Fatalf("%s, %s: Offsets(%#x), which does not rely on page %d: %v", what, rname, h, bad, err)
				}
				failed++
				continue
			}
			if f.onPage(h, bad) {
				t.Fatalf("%s, %s: Offsets(%#x) read damaged page %d without an error", what, rname, h, bad)
			}
			if want, _ := f.want(h); !slices.Equal(got, want) {
				t.Fatalf("%s, %s: Offsets(%#x) = %v, want %v", what, rname, h, head(got), head(want))
			}
		}
	}
	return failed
}

// damageFiles returns files of both versions of a few record pages each,
// and a heavy key across pages.
func damageFiles(t *testing.T, r *rand.Rand) []*indexFile {
	hs := repeat(nil, r.Uint64(), 600)
	for range 1500 {
		hs = append(hs, r.Uint64())
	}
	for range 100 {
		top := r.Uint64() >> 32 << 32
		hs = append(hs, top|r.Uint64N(1<<32), top|r.Uint64N(1<<32))
	}
	recs := recordsOf(r, hs, 1<<30)
	files := []*indexFile{buildFlat(t, recs), buildDense(t, recs, 32, 1<<30)}
	for _, f := range files {
		if f.h.Pages < 4 {
			t.Fatalf("version %d: %d record pages, want 4 or more", f.h.Version, f.h.Pages)
		}
	}
	return files
}

// TestReaderDamagedPage flips bytes of every record page, its checksum
// left as it was: checking the page (CheckPage, DensePageAt) is a PageError
// of the Reader that names the page, and every lookup is an error or
// exactly the oracle's answer, an error whenever it needs the page.
func TestReaderDamagedPage(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 6))
	for _, f := range damageFiles(t, r) {
		probes := f.probes(r, 60)
		failed, lookups := 0, 0
		for pg := range f.h.Pages {
			start := PageSize * (1 + pg)
			// The first record or key, a byte of the stream, the last
			// record's hash and offset, the trailer, the checksum, and
			// random bytes.
			ats := []uint64{0, 7, 8, 15, 22, RecordSize*(RecordsPerPage-1) + 7, RecordSize*RecordsPerPage - 1, PageNoOffset, PageLenOffset, CRCOffset, PageSize - 1}
			for range 6 {
				ats = append(ats, r.Uint64N(PageSize))
			}
			for _, at := range ats {
				data := slices.Clone(f.data)
				data[start+at] ^= byte(1 + r.IntN(255))
				what := fmt.Sprintf("version %d, page %d, byte %d", f.h.Version, pg, at)
				rd := NewReader(data, f.h, nil)
				err := checkPage(rd, f.h, pg)
				checkPageError(t, what, err, rd, pageRE(pg))
				if want := fmt.Sprintf("checksum mismatch in record page %d (bytes %d to %d)", pg, start, start+PageSize); err.(*PageError).Msg != want {
					t.Fatalf("%s: %q, want %q", what, err.(*PageError).Msg, want)
				}
				if err := checkPage(rd, f.h, pg); err == nil {
					t.Fatalf("%s: a damaged page passes its second check", what)
				}
				local := append(slices.Clone(probes), f.hashesOn(pg, 7)...)
				failed += checkDamagedLookups(t, what, f, data, pg, local, r)
				lookups += 4 * len(local)
			}
		}
		t.Logf("version %d: %d of %d lookups failed", f.h.Version, failed, lookups)
	}
}

// reseal puts the checksum of the page at pg in data back in order.
func reseal(data []byte, pg uint64) { crcpage.Seal(data[PageSize*(1+pg):][:PageSize]) }

// TestReaderForgedPage forges record pages whose checksums match but whose
// contents break the format (records out of order or twice, a wrong page
// number, count or flag): checking the page is a PageError naming it and
// saying what is wrong, and every lookup is an error or exactly the
// oracle's answer.
func TestReaderForgedPage(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 7))
	files := damageFiles(t, r)
	flat, dense := files[0], files[1]
	le := binary.LittleEndian
	rec := func(pg uint64, slot int) []byte {
		return flat.data[PageSize*(1+pg)+uint64(RecordSize*slot):][:RecordSize]
	}
	last := flat.h.Pages - 1
	cases := []struct {
		f     *indexFile
		name  string
		pg    uint64
		forge func(page []byte)
		msg   string // a pattern of the PageError's message
	}{
		{flat, "two records swapped", 2, func(page []byte) {
			a := slices.Clone(page[RecordSize*10:][:RecordSize])
			copy(page[RecordSize*10:], page[RecordSize*11:][:RecordSize])
			copy(page[RecordSize*11:], a)
		}, fmt.Sprintf(`^record %d, on record page 2, does not come after the record before it$`, 2*RecordsPerPage+11)},
		{flat, "a record twice", 1, func(page []byte) {
			copy(page[RecordSize*41:], page[RecordSize*40:][:RecordSize])
		}, fmt.Sprintf(`^record %d, on record page 1, does not come after`, RecordsPerPage+41)},
		{flat, "an offset out of order", 3, func(page []byte) {
			le.PutUint64(page[RecordSize*6:], le.Uint64(page[RecordSize*5:]))
			le.PutUint64(page[RecordSize*6+8:], le.Uint64(page[RecordSize*5+8:])-1)
		}, fmt.Sprintf(`^record %d, on record page 3, does not come after`, 3*RecordsPerPage+6)},
		{flat, "the last record of the page before, twice", 2, func(page []byte) {
			copy(page, rec(1, RecordsPerPage-1))
		}, fmt.Sprintf(`^record %d, the first of record page 2, does not come after the last of the page before$`, 2*RecordsPerPage)},
		{flat, "a wrong page number", 1, func(page []byte) { le.PutUint64(page[PageNoOffset:], 2) }, `^record page 1 has a bad trailer$`},
		{flat, "a wrong count", 0, func(page []byte) { le.PutUint32(page[PageLenOffset:], RecordsPerPage-1) }, `^record page 0 has a bad trailer$`},
		{flat, "padding of the last page", last, func(page []byte) { page[PageNoOffset-1] = 1 }, fmt.Sprintf(`^record page %d has a bad trailer$`, last)},
		{dense, "a wrong page number", 1, func(page []byte) { le.PutUint32(page[densePageNo:], 2) }, `^record page 1 says it is page 2$`},
		{dense, "low bits in the first key", 2, func(page []byte) { page[0] |= 1 }, `^record page 2: its first key`},
		{dense, "no runs", 0, func(page []byte) { le.PutUint16(page[denseRuns:], 0) }, `^record page 0: 0 runs`},
		{dense, "unknown flags", 3, func(page []byte) { page[denseFlags] |= 2 }, `^record page 3: Rice parameter`},
		{dense, "a stream too long", 1, func(page []byte) { le.PutUint16(page[denseBits:], denseCapacity+1) }, `^record page 1: \d+ bits of stream do not fit$`},
	}
	for _, c := range cases {
		data := slices.Clone(c.f.data)
		c.forge(data[PageSize*(1+c.pg):][:PageSize])
		reseal(data, c.pg)
		what := fmt.Sprintf("version %d, %s", c.f.h.Version, c.name)
		for pg := range c.f.h.Pages {
			rd := NewReader(data, c.f.h, nil)
			err := checkPage(rd, c.f.h, pg)
			switch {
			case pg == c.pg:
				checkPageError(t, fmt.Sprintf("%s: page %d", what, pg), err, rd, regexp.MustCompile(c.msg))
			case err != nil:
				t.Fatalf("%s: intact page %d: %v", what, pg, err)
			}
		}
		local := append(c.f.probes(r, 200), c.f.hashesOn(c.pg, 1)...)
		checkDamagedLookups(t, what, c.f, data, c.pg, local, r)
	}
}

// threeFlatPages returns a format 1 file of three full record pages, of
// increasing hashes, and its header.
func threeFlatPages(t *testing.T) ([]byte, *Header) {
	t.Helper()
	recs := make([]sorter.Record, 3*RecordsPerPage)
	for i := range recs {
		recs[i] = sorter.Record{Hash: uint64(i+1) << 20, Offset: uint64(i)}
	}
	data := writeFlat(t, recs)
	h, err := DecodeHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, h
}

// TestCheckPageBlamesThePageBefore: a damaged last record on the page
// before, whose CRC then fails, is reported as that page's checksum
// mismatch, not as page pg's records out of order.
func TestCheckPageBlamesThePageBefore(t *testing.T) {
	data, h := threeFlatPages(t)
	last := RecordPos(2*RecordsPerPage - 1) // the last record of record page 1
	data[last+7] = 0xff                     // its hash, now above page 2's first
	err := NewReader(data, h, nil).CheckPage(2)
	var pe *PageError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "checksum mismatch in record page 1 ") {
		t.Fatalf("CheckPage(2) = %v, want page 1's checksum mismatch", err)
	}
	if err := NewReader(data, h, nil).CheckPage(0); err != nil {
		t.Fatalf("CheckPage(0), an intact page: %v", err)
	}
}

// TestCheckPageLeavesThePageBefore: damage on the page before that spares
// its last record, the one CheckPage compares with, does not fail page pg:
// a lookup whose run is on page pg alone still answers.
func TestCheckPageLeavesThePageBefore(t *testing.T) {
	data, h := threeFlatPages(t)
	data[RecordPos(RecordsPerPage+3)+9] ^= 1 // an offset on record page 1, not its last record
	r := NewReader(data, h, nil)
	if err := r.CheckPage(2); err != nil {
		t.Fatalf("CheckPage(2) = %v, want nil: page 1's last record is intact", err)
	}
	if err := r.CheckPage(1); err == nil {
		t.Fatal("CheckPage(1), a damaged page: nil")
	}
}

// TestCursorOracle: a Cursor's Offsets gives the oracle's offsets, as
// Offsets from Locate's answer does, for the probes in ascending order (a
// page read once for several hashes), in random order and repeated, on
// files of both versions, through no fence, right ones and a wrong one.
func TestCursorOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 2))
	for name, f := range testFiles(t, r) {
		t.Run(name, func(t *testing.T) {
			probes := f.probes(r, 1500)
			sorted := slices.Clone(probes)
			slices.Sort(sorted)
			repeated := append(slices.Clone(sorted[:len(sorted)/2]), sorted...)
			for rname, rd := range f.readers(r) {
				for oname, order := range map[string][]uint64{"ascending": sorted, "random": probes, "twice": repeated} {
					c := rd.NewCursor()
					for _, h := range order {
						want, _ := f.want(h)
						var got []uint64
						err := c.Offsets(h, func(b []uint64) error { got = append(got, b...); return nil })
						if err != nil {
							t.Fatalf("%s, %s: Offsets(%#x): %v", rname, oname, h, err)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%s, %s: Offsets(%#x) = %d offsets %v, want %d %v", rname, oname, h, len(got), head(got), len(want), head(want))
						}
					}
				}
			}
		})
	}
}
