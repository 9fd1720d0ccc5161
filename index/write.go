package index

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/sorter"
)

// A pageSink receives the pages of an index as the writer seals them: the
// record pages in order (file pages 1, 2, ...), then the header (page 0),
// which can only be written once every record page's CRC is known.
type pageSink interface {
	writePage(n uint64, page []byte) error
}

// A slotSink is a pageSink that lets the writer fill each record page where
// the sink writes it from, saving a copy of every page.
type slotSink interface {
	pageSink
	// slot returns the memory of the next record page: pageSize bytes,
	// holding anything.
	slot() []byte
	// filled takes the record page in the last slot, complete; record
	// pages come in order.
	filled() error
}

// pageWriter packs sorted records into sealed pages.
type pageWriter struct {
	sink    pageSink
	slots   slotSink // sink, if it takes pages in place
	page    []byte   // the page being filled: a slot of slots, or the writer's own
	inPage  int      // records on the page being filled
	pages   uint64   // record pages sealed so far
	records uint64
	gen     *xxh3.Hasher             // running generation hash: the CRC of every record page
	fence   func(first uint64) error // takes the first hash of every record page, if set
}

// newPageWriter returns a writer of pages to sink that hands the first hash
// of every record page, the fence's entries, to fence (when not nil).
func newPageWriter(sink pageSink, fence func(first uint64) error) *pageWriter {
	w := &pageWriter{sink: sink, gen: xxh3.New(), fence: fence}
	if s, ok := sink.(slotSink); ok {
		w.slots, w.page = s, s.slot()
	} else {
		w.page = make([]byte, format.PageSize)
	}
	return w
}

// addBatch appends records, which must continue the sorted order.
func (w *pageWriter) addBatch(recs []sorter.Record) error { return w.add(recs) }

// add appends records, which must continue the sorted order. On a
// little-endian machine a Record in memory is its encoding (hash, then
// offset, 8 bytes each): the records are copied a page at a time.
func (w *pageWriter) add(recs []sorter.Record) error {
	if littleEndian && len(recs) > 0 {
		return w.addEncoded(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(recs))), format.RecordSize*len(recs)))
	}
	le := binary.LittleEndian
	for _, r := range recs {
		o := format.RecordSize * w.inPage
		le.PutUint64(w.page[o:], r.Hash)
		le.PutUint64(w.page[o+8:], r.Offset)
		w.inPage++
		if w.inPage == format.RecordsPerPage {
			if err := w.seal(); err != nil {
				return err
			}
		}
	}
	w.records += uint64(len(recs))
	return nil
}

// littleEndian says whether a Record's memory is its encoding.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && unsafe.Sizeof(sorter.Record{}) == format.RecordSize

// addEncoded appends records already encoded as they are on a page, which
// must continue the sorted order.
func (w *pageWriter) addEncoded(recs []byte) error {
	for len(recs) > 0 {
		n := min(len(recs)/format.RecordSize, format.RecordsPerPage-w.inPage)
		copy(w.page[format.RecordSize*w.inPage:], recs[:format.RecordSize*n])
		recs = recs[format.RecordSize*n:]
		w.inPage += n
		w.records += uint64(n)
		if w.inPage == format.RecordsPerPage {
			if err := w.seal(); err != nil {
				return err
			}
		}
	}
	return nil
}

// seal finishes the page being filled and hands it to the sink.
func (w *pageWriter) seal() error {
	le := binary.LittleEndian
	if w.fence != nil {
		if err := w.fence(le.Uint64(w.page)); err != nil {
			return fmt.Errorf("write the fence: %w", err)
		}
	}
	clear(w.page[format.RecordSize*w.inPage : format.PageNoOffset])
	le.PutUint64(w.page[format.PageNoOffset:], w.pages)
	le.PutUint32(w.page[format.PageLenOffset:], uint32(w.inPage))
	crc := format.PageCRC(w.page)
	le.PutUint32(w.page[format.CRCOffset:], crc)
	var b [4]byte
	le.PutUint32(b[:], crc)
	w.gen.Write(b[:])
	w.pages++
	w.inPage = 0
	if w.slots != nil {
		err := w.slots.filled()
		w.page = w.slots.slot()
		return err
	}
	return w.sink.writePage(w.pages, w.page)
}

// finish seals the last page, completes h (records, pages, generation) and
// writes the header page.
func (w *pageWriter) finish(h *format.Header) error {
	if w.inPage > 0 {
		if err := w.seal(); err != nil {
			return err
		}
	}
	return finishHeader(w.sink, h, w.records, w.pages, w.gen)
}

// finishHeader completes h with the file's records and pages and its
// generation, from gen (the hash of every record page's CRC so far), and
// writes it to sink as page 0.
func finishHeader(sink pageSink, h *format.Header, records, pages uint64, gen *xxh3.Hasher) error {
	h.Records, h.Pages, h.Generation = records, pages, 0
	page := make([]byte, format.PageSize) // not a slot: the header is written on its own
	h.Encode(page)
	gen.Write(page[:format.CRCOffset])
	h.Generation = gen.Sum64()
	clear(page)
	h.Encode(page)
	return sink.writePage(0, page)
}
