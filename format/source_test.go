package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// writeWithSource writes a format 1 index of a few records whose header
// has the source section s, and returns the file.
func writeWithSource(t *testing.T, s *SourceInfo) ([]byte, *Header) {
	t.Helper()
	sink := &fileSink{}
	w := NewPageWriter(sink, nil)
	recs := []sorter.Record{{Hash: 1, Offset: 3}, {Hash: 2, Offset: 9}, {Hash: 2, Offset: 12}}
	if err := w.AddBatch(recs); err != nil {
		t.Fatal(err)
	}
	h := &Header{Delim: ',', Scanned: 100, Resume: 100, Rows: 3}
	h.SetSource(s)
	if err := w.Finish(h); err != nil {
		t.Fatal(err)
	}
	return sink.bytes(), h
}

// TestSourceSection: a header with a source section, and its table of
// several pages, read back as written; the file is 4096·(1+P+T) bytes; the
// generation covers the table; a header without one is unchanged.
func TestSourceSection(t *testing.T) {
	table := make([]byte, 2*TablePageBytes+17)
	for i := range table {
		table[i] = byte(rand.IntN(256))
	}
	s := &SourceInfo{Backend: "bgzf", Size: 123456, HeadSum: 7, TailSum: 9, Table: table}
	file, _ := writeWithSource(t, s)
	if len(file) != PageSize*(1+1+3) {
		t.Fatalf("the file is %d bytes, want 5 pages", len(file))
	}
	h, err := DecodeHeader(file)
	if err != nil {
		t.Fatal(err)
	}
	if h.Flags&FlagSource == 0 || h.Source == nil || h.Source.Backend != "bgzf" || h.Source.Size != 123456 ||
		h.Source.HeadSum != 7 || h.Source.TailSum != 9 || h.Source.TableLen() != uint64(len(table)) || h.Size() != uint64(len(file)) {
		t.Fatalf("decoded %+v, size %d", h.Source, h.Size())
	}
	got, err := ReadTable(h, file)
	if err != nil || !bytes.Equal(got, table) {
		t.Fatalf("ReadTable: %v, equal %v", err, bytes.Equal(got, table))
	}

	// The generation hashes the table pages' CRCs: another table, another
	// generation; the same, the same.
	other := bytes.Clone(table)
	other[5000] ^= 1
	file2, _ := writeWithSource(t, &SourceInfo{Backend: "bgzf", Size: 123456, HeadSum: 7, TailSum: 9, Table: other})
	again, _ := writeWithSource(t, &SourceInfo{Backend: "bgzf", Size: 123456, HeadSum: 7, TailSum: 9, Table: table})
	g := func(f []byte) uint64 { return binary.LittleEndian.Uint64(f[24:]) }
	if g(file) == g(file2) || g(file) != g(again) {
		t.Errorf("generations %x, %x (another table), %x (the same)", g(file), g(file2), g(again))
	}

	plain, _ := writeWithSource(t, nil)
	if ph, err := DecodeHeader(plain); err != nil || ph.Source != nil || ph.Flags&FlagSource != 0 || len(plain) != 2*PageSize {
		t.Fatalf("without a source: %v, %+v, %d bytes", err, ph, len(plain))
	}
}

// TestSourceSectionDamage: a table page's damage is ErrCorrupt from
// ReadTable; a bad source section, or one without its flag, is ErrCorrupt
// from DecodeHeader.
func TestSourceSectionDamage(t *testing.T) {
	table := bytes.Repeat([]byte("t"), TablePageBytes+10)
	file, _ := writeWithSource(t, &SourceInfo{Backend: "zstd", Size: 1, Table: table})
	h, err := DecodeHeader(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(f []byte){
		"flipped byte":   func(f []byte) { f[2*PageSize+100] ^= 1 },
		"swapped pages":  func(f []byte) { swapPages(f, 2, 3) },
		"trailer length": func(f []byte) { resealWith(f[3*PageSize:], func(p []byte) { p[tablePageLen]++ }) },
		"bytes past end": func(f []byte) { resealWith(f[3*PageSize:], func(p []byte) { p[200] = 1 }) },
	} {
		f := bytes.Clone(file)
		spoil(f)
		if _, err := ReadTable(h, f); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: ReadTable = %v, want ErrCorrupt", name, err)
		}
	}
	for name, spoil := range map[string]func(p []byte){
		"no flag":        func(p []byte) { binary.LittleEndian.PutUint32(p[12:], binary.LittleEndian.Uint32(p[12:])&^FlagSource) },
		"empty name":     func(p []byte) { clear(p[sourceOffset : sourceOffset+MaxBackendName]) },
		"unprintable":    func(p []byte) { p[sourceOffset+1] = '\n' },
		"pages disagree": func(p []byte) { p[sourceOffset+48]++ },
		"past section":   func(p []byte) { p[sourceEndOffset+3] = 1 },
		"huge file":      func(p []byte) { binary.LittleEndian.PutUint64(p[sourceOffset+16:], 1<<63) },
	} {
		f := bytes.Clone(file)
		resealWith(f[:PageSize], spoil)
		if _, err := DecodeHeader(f); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeHeader = %v, want ErrCorrupt", name, err)
		}
	}
}

func swapPages(f []byte, i, j int) {
	a, b := f[i*PageSize:(i+1)*PageSize], f[j*PageSize:(j+1)*PageSize]
	tmp := bytes.Clone(a)
	copy(a, b)
	copy(b, tmp)
}

// resealWith changes a page with fn and seals it with its CRC again.
func resealWith(page []byte, fn func([]byte)) {
	fn(page)
	binary.LittleEndian.PutUint32(page[CRCOffset:], PageCRC(page[:PageSize]))
}
