package format

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/sorter"
)

// A PageSink receives the pages of an index as the writer seals them: the
// record pages in order (file pages 1, 2, ...), then the header (page 0),
// which can only be written once every record page's CRC is known.
type PageSink interface {
	WritePage(n uint64, page []byte) error
}

// A SlotSink is a PageSink that lets the writer fill each record page where
// the sink writes it from, saving a copy of every page.
type SlotSink interface {
	PageSink
	// Slot returns the memory of the next record page: PageSize bytes,
	// holding anything.
	Slot() []byte
	// Filled takes the record page in the last slot, complete; record
	// pages come in order.
	Filled() error
}

// PageWriter packs sorted records into sealed pages.
type PageWriter struct {
	sink    PageSink
	slots   SlotSink // sink, if it takes pages in place
	page    []byte   // the page being filled: a slot of slots, or the writer's own
	inPage  int      // records on the page being filled
	pages   uint64   // record pages sealed so far
	records uint64
	gen     *xxh3.Hasher             // running generation hash: the CRC of every record page
	fence   func(first uint64) error // takes the first hash of every record page, if set
}

// NewPageWriter returns a writer of pages to sink that hands the first hash
// of every record page, the fence's entries, to fence (when not nil).
func NewPageWriter(sink PageSink, fence func(first uint64) error) *PageWriter {
	w := &PageWriter{sink: sink, gen: xxh3.New(), fence: fence}
	if s, ok := sink.(SlotSink); ok {
		w.slots, w.page = s, s.Slot()
	} else {
		w.page = make([]byte, PageSize)
	}
	return w
}

// AddBatch appends records, which must continue the sorted order.
func (w *PageWriter) AddBatch(recs []sorter.Record) error { return w.add(recs) }

// add appends records, which must continue the sorted order. On a
// little-endian machine a Record in memory is its encoding (hash, then
// offset, 8 bytes each): the records are copied a page at a time.
func (w *PageWriter) add(recs []sorter.Record) error {
	if littleEndian && len(recs) > 0 {
		return w.addEncoded(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(recs))), RecordSize*len(recs)))
	}
	le := binary.LittleEndian
	for _, r := range recs {
		o := RecordSize * w.inPage
		le.PutUint64(w.page[o:], r.Hash)
		le.PutUint64(w.page[o+8:], r.Offset)
		w.inPage++
		if w.inPage == RecordsPerPage {
			if err := w.seal(); err != nil {
				return err
			}
		}
	}
	w.records += uint64(len(recs))
	return nil
}

// littleEndian says whether a Record's memory is its encoding.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && unsafe.Sizeof(sorter.Record{}) == RecordSize

// addEncoded appends records already encoded as they are on a page, which
// must continue the sorted order.
func (w *PageWriter) addEncoded(recs []byte) error {
	for len(recs) > 0 {
		n := min(len(recs)/RecordSize, RecordsPerPage-w.inPage)
		copy(w.page[RecordSize*w.inPage:], recs[:RecordSize*n])
		recs = recs[RecordSize*n:]
		w.inPage += n
		w.records += uint64(n)
		if w.inPage == RecordsPerPage {
			if err := w.seal(); err != nil {
				return err
			}
		}
	}
	return nil
}

// seal finishes the page being filled and hands it to the sink.
func (w *PageWriter) seal() error {
	le := binary.LittleEndian
	if w.fence != nil {
		if err := w.fence(le.Uint64(w.page)); err != nil {
			return fmt.Errorf("write the fence: %w", err)
		}
	}
	clear(w.page[RecordSize*w.inPage : PageNoOffset])
	le.PutUint64(w.page[PageNoOffset:], w.pages)
	le.PutUint32(w.page[PageLenOffset:], uint32(w.inPage))
	crc := PageCRC(w.page)
	le.PutUint32(w.page[CRCOffset:], crc)
	var b [4]byte
	le.PutUint32(b[:], crc)
	w.gen.Write(b[:])
	w.pages++
	w.inPage = 0
	if w.slots != nil {
		err := w.slots.Filled()
		w.page = w.slots.Slot()
		return err
	}
	return w.sink.WritePage(w.pages, w.page)
}

// Finish seals the last page, completes h (records, pages, generation) and
// writes the header page.
func (w *PageWriter) Finish(h *Header) error {
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
func finishHeader(sink PageSink, h *Header, records, pages uint64, gen *xxh3.Hasher) error {
	if s := h.Source; s != nil {
		var b [4]byte
		for i := range s.TablePages() {
			page := tablePage(s.Table, i)
			copy(b[:], page[CRCOffset:])
			gen.Write(b[:])
			if err := sink.WritePage(pages+1+i, page); err != nil {
				return err
			}
		}
	}
	h.Records, h.Pages, h.Generation = records, pages, 0
	page := make([]byte, PageSize) // not a slot: the header is written on its own
	h.Encode(page)
	gen.Write(page[:CRCOffset])
	h.Generation = gen.Sum64()
	clear(page)
	h.Encode(page)
	return sink.WritePage(0, page)
}
