package format

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// csvPath is the CSV the comparisons' messages name.
const csvPath = "data/users.csv"

// comparedSize is the size of the CSV of the compared files: offsets are
// below it, in 20 bits.
const comparedSize = 1 << 20

// comparedHeader returns the header the compared files start from, before
// the writer completes it.
func comparedHeader() Header {
	return Header{Delim: ',', Flags: FlagHeader, KeyCol: 1, HeaderEnd: 8, Scanned: comparedSize, Resume: comparedSize,
		Rows: 1 << 19, ShortRows: 3, Blanks: 2, KeyName: []byte("user"), HeadChecksum: 0x1111, TailChecksum: 0x2222}
}

// comparedRecords returns n records of distinct hashes, whose top 32 bits
// (format 2's fingerprints) are distinct too, at distinct offsets below
// comparedSize, sorted: in format 2 every run is of one row, so a page
// ends between two keys.
func comparedRecords(r *rand.Rand, n int) []sorter.Record {
	seen := map[uint64]bool{}
	var hs []uint64
	for len(hs) < n {
		if h := r.Uint64(); !seen[h>>32] {
			seen[h>>32] = true
			hs = append(hs, h)
		}
	}
	return recordsOf(r, hs, comparedSize)
}

// A version builds the compared files in its format.
type version struct {
	name  string
	build func(t *testing.T, recs []sorter.Record, h Header) []byte
}

// versions are the two formats: format 1 written by a PageWriter, format 2
// packed by a DensePacker with F = 32 for an index of 4096 records (the
// same for every file, so that the first page's Rice parameter does not
// depend on the records) of a CSV of comparedSize bytes.
var versions = []version{
	{"format 1", func(t *testing.T, recs []sorter.Record, h Header) []byte {
		return flatIndex(t, recs, h)
	}},
	{"format 2", func(t *testing.T, recs []sorter.Record, h Header) []byte {
		return denseIndex(t, recs, 32, 4096, comparedSize, h)
	}},
}

// flatIndex returns recs, sorted with none twice, as a format 1 file whose
// header is h, completed by the writer.
func flatIndex(t *testing.T, recs []sorter.Record, h Header) []byte {
	t.Helper()
	sink := &fileSink{}
	w := NewPageWriter(sink, nil)
	addBatches(t, recs, w.AddBatch)
	if err := w.Finish(&h); err != nil {
		t.Fatal(err)
	}
	return sink.bytes()
}

// denseIndex returns recs, their hashes masked to f bits and sorted, as a
// format 2 file whose header is h, completed by the packer, packed for an
// index of hint records of a CSV of size bytes.
func denseIndex(t *testing.T, recs []sorter.Record, f int, hint, size uint64, h Header) []byte {
	t.Helper()
	sink := &fileSink{}
	p := NewDensePacker(sink, nil, f, hint, size)
	addBatches(t, maskedOracle(recs, ^uint64(0)<<p.Shift), p.AddBatch)
	if err := p.Finish(&h); err != nil {
		t.Fatal(err)
	}
	return sink.bytes()
}

// recordsOn returns the records of record page pg of data, an index file
// whose header is h, decoded in its format.
func recordsOn(t *testing.T, data []byte, h *Header, pg uint64) []sorter.Record {
	t.Helper()
	recs, err := pageRecords(nil, h, data[PageSize*(1+pg):][:PageSize], pg)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// compareFiles hands the pages of fresh to a Comparison with old as a
// writer does, the record pages in order and then the header page, all
// from one buffer that it spoils after each call (a writer reuses its
// page), and returns the Report on the decoded headers.
func compareFiles(t *testing.T, old, fresh []byte) []string {
	t.Helper()
	c := NewComparison(old)
	buf := make([]byte, PageSize)
	hand := func(n uint64) {
		copy(buf, fresh[PageSize*n:][:PageSize])
		if err := c.WritePage(n, buf); err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			buf[i] = 0xa5
		}
	}
	for n := uint64(1); n < uint64(len(fresh))/PageSize; n++ {
		hand(n)
	}
	hand(0)
	return c.Report(csvPath, decodeFile(t, old), decodeFile(t, fresh))
}

// checkReport fails unless got is want, line for line.
func checkReport(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: the report says\n\t%s\nwant\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// rowLine is the report's line for the row at byte off: one the index has
// there that a fresh build has not (index), or one a fresh build has that
// the index has not under its key, and where.
func rowLine(off uint64, index bool, where string) string {
	what := "is not indexed under its key"
	if index {
		what = "is not the one the index has there"
	}
	return fmt.Sprintf("the row at byte %d of %s %s: the CSV changed there or near it since the build (%s)", off, csvPath, what, where)
}

// TestComparisonIdentical: a fresh build of the same records with the same
// header, written by a PageWriter or a DensePacker straight to the
// Comparison as its sink (which reuses its page buffer), reports nothing,
// on files of several record pages, of one, and of none.
func TestComparisonIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 41))
	for _, n := range []int{4000, 100, 0} {
		recs := comparedRecords(r, n)
		for _, v := range versions {
			what := fmt.Sprintf("%s, %d records", v.name, n)
			old := v.build(t, recs, comparedHeader())
			c := NewComparison(old)
			h := comparedHeader()
			if v.name == "format 1" {
				w := NewPageWriter(c, nil)
				addBatches(t, recs, w.AddBatch)
				if err := w.Finish(&h); err != nil {
					t.Fatal(err)
				}
			} else {
				p := NewDensePacker(c, nil, 32, 4096, comparedSize)
				addBatches(t, maskedOracle(recs, topBits(32)), p.AddBatch)
				if err := p.Finish(&h); err != nil {
					t.Fatal(err)
				}
			}
			oh := decodeFile(t, old)
			if n == 4000 && oh.Pages < 4 {
				t.Fatalf("%s: %d record pages, want 4 or more", what, oh.Pages)
			}
			checkReport(t, what, c.Report(csvPath, oh, &h))
			checkReport(t, what+", decoded", compareFiles(t, old, old))
		}
	}
}

// TestComparisonHeaderFields: each header field the Report compares, when
// a fresh build's differs (the record pages being the same), is one line
// that names it and says both values; all of them at once are one line
// each, in the Report's order, and nothing else. F and W are format 2's
// only.
func TestComparisonHeaderFields(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 42))
	recs := comparedRecords(r, 1000)
	cases := []struct {
		change func(h *Header)
		line   string
		dense  bool // a field of format 2's only
	}{
		{func(h *Header) { h.Scanned++ }, fmt.Sprintf("scanned bytes: the index says %d, a fresh build %d", comparedSize, comparedSize+1), false},
		{func(h *Header) { h.Rows = 7000 }, fmt.Sprintf("rows: the index says %d, a fresh build 7000", 1<<19), false},
		{func(h *Header) { h.Records = 999 }, "index records: the index says 1000, a fresh build 999", false},
		{func(h *Header) { h.ShortRows = 0 }, "short rows: the index says 3, a fresh build 0", false},
		{func(h *Header) { h.Blanks = 5 }, "blank lines: the index says 2, a fresh build 5", false},
		{func(h *Header) { h.Resume -= 10 }, fmt.Sprintf("resume offset: the index says %d, a fresh build %d", comparedSize, comparedSize-10), false},
		{func(h *Header) { h.HeaderEnd = 9 }, "header record end: the index says 8, a fresh build 9", false},
		{func(h *Header) { h.KeyName = []byte(`us"er`) }, `key name: the index says "user", a fresh build "us\"er"`, false},
		{func(h *Header) { h.HeadChecksum = 0x1234 }, fmt.Sprintf("checksum of the first bytes: the index says %d, a fresh build %d", 0x1111, 0x1234), false},
		{func(h *Header) { h.TailChecksum = 1 }, fmt.Sprintf("checksum of the last bytes: the index says %d, a fresh build 1", 0x2222), false},
		{func(h *Header) { h.FPBits++ }, "fingerprint bits: the index says 32, a fresh build 33", true},
		{func(h *Header) { h.OffBits++ }, "offset bits: the index says 21, a fresh build 22", true},
	}
	for _, v := range versions {
		data := v.build(t, recs, comparedHeader())
		dense := decodeFile(t, data).Dense()
		// report compares data with itself, page for page, the fresh
		// build's header changed by change.
		report := func(change func(h *Header)) []string {
			c := NewComparison(data)
			for n := uint64(1); n < uint64(len(data))/PageSize; n++ {
				if err := c.WritePage(n, data[PageSize*n:][:PageSize]); err != nil {
					t.Fatal(err)
				}
			}
			fresh := decodeFile(t, data)
			change(fresh)
			return c.Report(csvPath, decodeFile(t, data), fresh)
		}
		var all []string
		for _, c := range cases {
			if c.dense && !dense {
				continue
			}
			checkReport(t, v.name, report(c.change), c.line)
			all = append(all, c.line)
		}
		checkReport(t, v.name+", every field", report(func(h *Header) {
			for _, c := range cases {
				if dense || !c.dense {
					c.change(h)
				}
			}
		}), all...)
	}
}

// TestComparisonCorruptPage: a record page of the index whose checksum
// fails, the first, one inside or the last, is reported as corrupt, with
// its bytes, and nothing else: "record page N (bytes A to B) is corrupt:
// checksum mismatch".
func TestComparisonCorruptPage(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 43))
	recs := comparedRecords(r, 4000)
	for _, v := range versions {
		fresh := v.build(t, recs, comparedHeader())
		pages := decodeFile(t, fresh).Pages
		for _, pg := range []uint64{0, 2, pages - 1} {
			old := slices.Clone(fresh)
			old[PageSize*(1+pg)+uint64(r.IntN(PageSize))] ^= 0x40
			checkReport(t, fmt.Sprintf("%s, record page %d", v.name, pg), compareFiles(t, old, fresh),
				fmt.Sprintf("record page %d (bytes %d to %d) is corrupt: checksum mismatch", pg, PageSize*(1+pg), PageSize*(2+pg)))
		}
	}
}

// TestComparisonForgedPage: a format 1 record page of the index whose
// checksum matches but whose records break the order (within the page or
// from the page before's last), or point past the bytes the index covers,
// is reported so, by record and page.
func TestComparisonForgedPage(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 44))
	recs := comparedRecords(r, 4000)
	fresh := flatIndex(t, recs, comparedHeader())
	le := binary.LittleEndian
	for _, c := range []struct {
		name  string
		forge func(data []byte)
		line  string
	}{
		{"a record twice", func(data []byte) {
			copy(data[RecordPos(2*RecordsPerPage+41):][:RecordSize], data[RecordPos(2*RecordsPerPage+40):][:RecordSize])
		}, fmt.Sprintf("record %d, on record page 2, does not come after the record before it: records must strictly increase", 2*RecordsPerPage+41)},
		{"the last record of the page before, first", func(data []byte) {
			copy(data[RecordPos(2*RecordsPerPage):][:RecordSize], data[RecordPos(2*RecordsPerPage-1):][:RecordSize])
		}, fmt.Sprintf("record %d, on record page 2, does not come after the record before it: records must strictly increase", 2*RecordsPerPage)},
		{"an offset at the scanned size", func(data []byte) {
			le.PutUint64(data[RecordPos(2*RecordsPerPage+7)+8:], comparedSize)
		}, fmt.Sprintf("corrupt: a record of record page 2 points at byte %d, outside the bytes [0, %d) it indexes", comparedSize, comparedSize)},
	} {
		old := slices.Clone(fresh)
		c.forge(old)
		reseal(old, 2)
		checkReport(t, c.name, compareFiles(t, old, fresh), c.line)
	}
}

// TestComparisonRowDiffers: a row of the CSV that moved (its record's
// offset differs) or changed key (its record moved within the page) on
// record page 2 of a file of several pages, in either version, is named by
// its byte: a row the index has there and a fresh build has not is "not
// the one the index has there", one a fresh build has and the index has
// not "is not indexed under its key", on record page 2. The first record
// of the page, which follows the page before's last, and one inside it
// (whose key, changed, goes 4 records back or 5 on).
func TestComparisonRowDiffers(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 45))
	recs := comparedRecords(r, 4000)
	used := map[uint64]bool{}
	for _, rc := range recs {
		used[rc.Offset] = true
	}
	// unused returns the first offset from o on, by step, that no row has.
	unused := func(o uint64, step int) uint64 {
		for used[o] {
			o += uint64(step)
		}
		return o
	}
	for _, v := range versions {
		old := v.build(t, recs, comparedHeader())
		oh := decodeFile(t, old)
		page2 := recordsOn(t, old, oh, 2)
		mask := ^uint64(0)
		if oh.Dense() {
			mask = topBits(32)
		}
		// at returns the index in recs of the record of page 2's slot j.
		at := func(j int) int {
			return slices.IndexFunc(recs, func(rc sorter.Record) bool { return rc.Offset == page2[j].Offset })
		}
		for _, j := range []int{0, len(page2) / 2} {
			o := page2[j].Offset
			for _, c := range []struct {
				name   string
				change func(rc *sorter.Record)
				line   string
			}{
				{"moved later", func(rc *sorter.Record) { rc.Offset = unused(o+1, 1) }, rowLine(o, true, "record page 2")},
				{"moved earlier", func(rc *sorter.Record) { rc.Offset = unused(o-1, -1) }, rowLine(unused(o-1, -1), false, "record page 2")},
				{"key changed to a later one", func(rc *sorter.Record) { rc.Hash = page2[j+5].Hash + 1<<32 }, rowLine(o, true, "record page 2")},
				{"key changed to an earlier one", func(rc *sorter.Record) { rc.Hash = page2[j-4].Hash - 1<<32 }, rowLine(o, false, "record page 2")},
			} {
				if j == 0 && strings.HasPrefix(c.name, "key") {
					continue // the page would start with another record: the page before may end elsewhere
				}
				what := fmt.Sprintf("%s, slot %d of record page 2, %s", v.name, j, c.name)
				changed := slices.Clone(recs)
				c.change(&changed[at(j)])
				slices.SortFunc(changed, compareRecords)
				fresh := v.build(t, changed, comparedHeader())
				fh := decodeFile(t, fresh)
				for pg := range uint64(2) {
					if !slices.Equal(recordsOn(t, fresh, fh, pg), recordsOn(t, old, oh, pg)) {
						t.Fatalf("%s: record page %d changed too", what, pg)
					}
				}
				if got := maskedOracle(changed, mask); slices.Equal(got, maskedOracle(recs, mask)) ||
					len(slices.CompactFunc(maskedOracle(changed, topBits(32)), func(a, b sorter.Record) bool { return a.Hash == b.Hash })) != len(recs) {
					t.Fatalf("%s: the same records, or two keys that share a fingerprint", what)
				}
				checkReport(t, what, compareFiles(t, old, fresh), c.line)
			}
		}
	}
}

// TestComparisonNextPage: a format 2 page ends where its next run no
// longer fits, so a fresh build whose first differing record page holds
// the index's records and one more (the index's next page's first row,
// under a key whose run costs fewer bits: right after the page's last key,
// or that key itself) parts from the index only at the first record of
// the next page. The row is found there and named on the page that has
// it, both ways round: "not indexed under its key" when the fresh build
// has the extra record, "not the one the index has there" when the index
// has it.
func TestComparisonNextPage(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 49))
	recs := maskedOracle(comparedRecords(r, 4000), topBits(32))
	old := denseIndex(t, recs, 32, 4096, comparedSize, comparedHeader())
	oh := decodeFile(t, old)
	found := 0
	for pg := range oh.Pages - 1 {
		on, next := recordsOn(t, old, oh, pg), recordsOn(t, old, oh, pg+1)
		k, rc := on[len(on)-1], next[0]
		for _, h := range []uint64{k.Hash + 1<<32, k.Hash} {
			if h == k.Hash && rc.Offset < k.Offset {
				continue // the run's offsets would not be in order
			}
			changed := slices.Clone(recs)
			changed[slices.Index(changed, rc)].Hash = h
			slices.SortFunc(changed, compareRecords)
			fresh := denseIndex(t, changed, 32, 4096, comparedSize, comparedHeader())
			fh := decodeFile(t, fresh)
			if len(recordsOn(t, fresh, fh, pg)) != len(on)+1 {
				continue // the row's new run does not fit on the page either
			}
			if !slices.Equal(fresh[PageSize:][:PageSize*pg], old[PageSize:][:PageSize*pg]) {
				t.Fatalf("record page %d, key %#x: the pages before differ", pg, h)
			}
			found++
			what := fmt.Sprintf("record page %d, key %#x", pg, h)
			checkReport(t, what, compareFiles(t, old, fresh), rowLine(rc.Offset, false, fmt.Sprintf("record page %d", pg)))
			checkReport(t, what+", the other way", compareFiles(t, fresh, old), rowLine(rc.Offset, true, fmt.Sprintf("record page %d", pg)))
		}
	}
	if found == 0 {
		t.Fatal("no page takes its next page's first row under another key")
	}
	t.Logf("%d cases on %d record pages", found, oh.Pages)
}

// TestComparisonEnds: a fresh build whose record pages are the index's
// but its last (the index's last rows no longer indexed), and the other
// way round: the header's record count differs, and the first row of the
// page only one side has is named, where the fresh build ends ("a fresh
// build ends before record page P") or where the index does ("the index
// ends before record page P of a fresh build").
func TestComparisonEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 46))
	recs := comparedRecords(r, 4000)
	for _, v := range versions {
		long := v.build(t, recs, comparedHeader())
		lh := decodeFile(t, long)
		last := lh.Pages - 1
		lastRecs := recordsOn(t, long, lh, last)
		n := int(lh.Records) - len(lastRecs)
		shortRecs := recs[:n]
		if lh.Dense() {
			shortRecs = maskedOracle(recs, topBits(32))[:n]
		}
		short := v.build(t, shortRecs, comparedHeader())
		sh := decodeFile(t, short)
		if sh.Pages != last || !slices.Equal(short[PageSize:], long[PageSize:][:PageSize*last]) {
			t.Fatalf("%s: the shorter file's %d record pages are not the longer one's first", v.name, sh.Pages)
		}
		checkReport(t, v.name+", the index longer", compareFiles(t, long, short),
			fmt.Sprintf("index records: the index says %d, a fresh build %d", lh.Records, n),
			rowLine(lastRecs[0].Offset, true, fmt.Sprintf("a fresh build ends before record page %d", last)))
		checkReport(t, v.name+", the index shorter", compareFiles(t, short, long),
			fmt.Sprintf("index records: the index says %d, a fresh build %d", n, lh.Records),
			rowLine(lastRecs[0].Offset, false, fmt.Sprintf("the index ends before record page %d of a fresh build", last)))
	}
}

// TestComparisonOtherWidths: format 2 files of the same rows whose F or W
// differ report the header's field and that the record pages, from the
// first, are coded in other widths.
func TestComparisonOtherWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 47))
	recs := comparedRecords(r, 3000)
	base := denseIndex(t, recs, 32, 4096, comparedSize, comparedHeader())
	const widths = "record page 0 and those after it differ: their rows are coded in other widths"
	checkReport(t, "F", compareFiles(t, base, denseIndex(t, recs, 33, 4096, comparedSize, comparedHeader())),
		"fingerprint bits: the index says 32, a fresh build 33", widths)
	checkReport(t, "W", compareFiles(t, base, denseIndex(t, recs, 32, 4096, 4*comparedSize, comparedHeader())),
		"offset bits: the index says 21, a fresh build 23", widths)
}

// TestComparisonHeaderPage: when the record pages and the fields the
// Report compares are the same but the header pages are not (the key's
// column, the flags, the delimiter, the parent, the base, the header
// record's start), the Report says so in one line: "the header page
// differs".
func TestComparisonHeaderPage(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 48))
	recs := comparedRecords(r, 2000)
	for _, v := range versions {
		fresh := v.build(t, recs, comparedHeader())
		for _, c := range []struct {
			name   string
			change func(h *Header)
		}{
			{"key column", func(h *Header) { h.KeyCol = 4 }},
			{"flags", func(h *Header) { h.Flags = 0 }},
			{"delimiter", func(h *Header) { h.Delim = ';' }},
			{"parent", func(h *Header) { h.Parent = 77 }},
			{"base", func(h *Header) { h.Base = 3 }},
			{"header record start", func(h *Header) { h.HeaderStart = 1 }},
		} {
			what := fmt.Sprintf("%s, %s", v.name, c.name)
			old := slices.Clone(fresh)
			h := decodeFile(t, old)
			c.change(h)
			clear(old[:PageSize])
			h.Encode(old[:PageSize])
			checkReport(t, what, compareFiles(t, old, fresh), "the header page differs")
		}
	}
}
