package compressed

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"github.com/csvidx/csvidx/source"
	"github.com/klauspost/compress/zstd"
)

// A gzip table (a []Checkpoint with its end, see WalkGzip) is kept in an
// index as a directory of the checkpoints, then their windows:
//
//	version   1 byte    2 (1 had no span)
//	span      uvarint   the span the walk was asked for, in plain bytes (a walk
//	                    of the file anew, verify's, is asked the same)
//	n         uvarint   the checkpoints, less the end
//	n times, one a checkpoint:
//	  dbit    uvarint   its Bit less the previous checkpoint's (the first's less 0)
//	  dplain  uvarint   its Plain less the previous checkpoint's (0 for the first)
//	  sum     4 bytes   its Sum, little-endian
//	  wlen    uvarint   len(Window): 0 at a member's start
//	the end:
//	  dbit    uvarint   the file's size in bits less the last checkpoint's Bit
//	  dplain  uvarint   the plain size less the last checkpoint's Plain
//	windows             the n Windows, in order, wlen bytes each
//
// A file of one member of 120 bytes that holds 1000 plain bytes whose
// CRC-32 is 0x0d0c0b0a, walked with the default span (1 MiB), encodes as
//
//	01  80 80 40  01  00 00 0a 0b 0c 0d 00  c0 07 e8 07
//
// Windows are most of a table: at the default span (1 MiB), about 8.2 KB
// a checkpoint, 0.39 to 0.42 bytes a row of a 1M-row orders CSV of 52
// bytes a row (scripts/csvgen) gzipped by gzip -6, gzip -9 or pigz.
const gzipTableVersion = 2

// A Checkpoint is where inflating a gzip file can begin (see WalkGzip): a
// member's start, or the end of a deflate block inside one, with the plain
// bytes before it (32 KiB at most) that the blocks after it may copy from.
// A span is the plain bytes from one checkpoint to the next.
type Checkpoint struct {
	// Bit is where the checkpoint is in the file, in bits: a member's first
	// byte times 8, or a deflate block's first bit.
	Bit int64
	// Plain is where its plain bytes start in the plain stream.
	Plain int64
	// Sum is the CRC-32 of its span's plain bytes; 0 for the end.
	Sum uint32
	// Window is the plain bytes before the checkpoint in its member (the
	// last 32 KiB of them at most), compressed as a zstd frame (see
	// packWindow): empty at a member's start, and for the end.
	Window []byte
}

// errGzipTable means an encoded gzip table does not decode to a table.
var errGzipTable = fmt.Errorf("%w: not a gzip checkpoint table", source.ErrTable)

// maxOffset bounds the offsets a table holds, in bits and in bytes, so
// that no sum of them overflows.
const maxOffset = 1 << 62

// EncodeGzipTable returns the encoding of cps, a table with its end, made
// by a walk with span.
func EncodeGzipTable(cps []Checkpoint, span int64) []byte {
	n := len(cps) - 1
	size := 1 + 2*binary.MaxVarintLen64
	for _, c := range cps {
		size += 2*binary.MaxVarintLen64 + 4 + len(c.Window)
	}
	b := append(make([]byte, 0, size), gzipTableVersion)
	b = binary.AppendUvarint(b, uint64(span))
	b = binary.AppendUvarint(b, uint64(max(n, 0)))
	var prev Checkpoint
	for i, c := range cps {
		b = binary.AppendUvarint(b, uint64(c.Bit-prev.Bit))
		b = binary.AppendUvarint(b, uint64(c.Plain-prev.Plain))
		if i < n {
			b = binary.LittleEndian.AppendUint32(b, c.Sum)
			b = binary.AppendUvarint(b, uint64(len(c.Window)))
		}
		prev = c
	}
	for _, c := range cps[:max(n, 0)] {
		b = append(b, c.Window...)
	}
	return b
}

// DecodeGzipTable returns the table b encodes (see EncodeGzipTable) and the
// span its walk was asked for (1 to MaxFrame), its windows copied out of
// b: checkpoints whose Bit and Plain both ascend,
// the first a member's start at plain offset 0, each member's start (a
// checkpoint without a window) and the end on a byte, every span holding
// plain bytes, and at least the end. Anything else is an error wrapping
// errGzipTable, however b was damaged. The windows are not decoded: a
// read that resumes at a checkpoint decodes its window, and checks what
// it inflates against the span's Sum.
func DecodeGzipTable(b []byte) (cps []Checkpoint, span int64, err error) {
	if len(b) == 0 || b[0] != gzipTableVersion {
		return nil, 0, fmt.Errorf("%w: not version %d", errGzipTable, gzipTableVersion)
	}
	r := tableReader{b: b[1:]}
	if s := r.uvarint(); r.err != nil || s == 0 || s > uint64(maxFrame) {
		return nil, 0, fmt.Errorf("%w: a bad span", errGzipTable)
	} else {
		span = int64(s)
	}
	n := r.uvarint()
	const minEntry = 7 // dbit, dplain, sum, wlen
	if r.err != nil || n > uint64(len(r.b)/minEntry) {
		return nil, 0, fmt.Errorf("%w: a bad count of checkpoints", errGzipTable)
	}
	cps = make([]Checkpoint, 0, n+1)
	wlens := make([]uint64, 0, n+1)
	var at Checkpoint
	var windows uint64
	for i := range n + 1 {
		dbit, dplain := r.uvarint(), r.uvarint()
		var sum uint32
		var wlen uint64
		if i < n {
			sum, wlen = r.uint32(), r.uvarint()
		}
		if r.err != nil {
			return nil, 0, fmt.Errorf("%w: it ends inside its directory", errGzipTable)
		}
		if dbit >= maxOffset || dplain >= maxOffset || at.Bit >= maxOffset-int64(dbit) || at.Plain >= maxOffset-int64(dplain) {
			return nil, 0, fmt.Errorf("%w: offsets out of range", errGzipTable)
		}
		at = Checkpoint{Bit: at.Bit + int64(dbit), Plain: at.Plain + int64(dplain), Sum: sum}
		switch {
		case i == 0 && at.Plain != 0:
			return nil, 0, fmt.Errorf("%w: the first checkpoint is at plain byte %d", errGzipTable, at.Plain)
		case i == 0 && i < n && wlen != 0:
			return nil, 0, fmt.Errorf("%w: the first checkpoint is not a member's start", errGzipTable)
		case i > 0 && (dbit == 0 || dplain == 0):
			return nil, 0, fmt.Errorf("%w: a span of no bytes", errGzipTable)
		case (wlen == 0 || i == n) && at.Bit%8 != 0:
			return nil, 0, fmt.Errorf("%w: a member's start or the end between bytes", errGzipTable)
		case wlen > uint64(len(b)):
			return nil, 0, fmt.Errorf("%w: a window larger than the table", errGzipTable)
		}
		cps = append(cps, at)
		wlens = append(wlens, wlen)
		windows += wlen
	}
	if windows != uint64(len(r.b)) {
		return nil, 0, fmt.Errorf("%w: %d bytes of windows, where the directory says %d", errGzipTable, len(r.b), windows)
	}
	all := bytes.Clone(r.b)
	for i := range n {
		cps[i].Window, all = all[:wlens[i]:wlens[i]], all[wlens[i]:]
	}
	return cps, span, nil
}

// A tableReader reads the fields of an encoded table from b, the bytes
// not yet read; err is set, and every field read is 0, once one is
// missing or malformed.
type tableReader struct {
	b   []byte
	err error
}

// uvarint reads an unsigned varint.
func (r *tableReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errGzipTable
		return 0
	}
	r.b = r.b[n:]
	return v
}

// uint32 reads a little-endian uint32.
func (r *tableReader) uint32() uint32 {
	if r.err != nil || len(r.b) < 4 {
		r.err = errGzipTable
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

// windowSize is the most plain bytes before a checkpoint that the deflate
// blocks after it may copy from (RFC 1951's window).
const windowSize = 32 << 10

// windowEncoder compresses the windows of checkpoints, as many at once as
// there are cores (EncodeAll is safe for concurrent use), without zstd's
// checksum: a damaged window inflates to bytes that fail their span's Sum.
// Its level, zstd's "better", wrote windows of an orders CSV 2% smaller
// than its default and 6% larger than its best, in a quarter of best's
// time (1 ms a window), which would have slowed the walk.
var windowEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderCRC(false),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithWindowSize(windowSize))
})

// packWindow returns window compressed, as a Checkpoint keeps it.
func packWindow(window []byte) ([]byte, error) {
	e, err := windowEncoder()
	if err != nil {
		return nil, err
	}
	return e.EncodeAll(window, nil), nil
}

// unpackWindow returns the window that packed holds: at most windowSize
// bytes, else an error.
func unpackWindow(packed []byte) ([]byte, error) {
	d, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	return d.DecodeAll(packed, make([]byte, 0, windowSize))
}
