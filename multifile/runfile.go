package multifile

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/csvidx/csvidx/internal/atomicfile"
	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/sorter"
)

// A run file holds the records a map task found of one partition, in the
// order it found them (ascending offsets): a reduce task reads them. Its
// layout, all little-endian:
//
//	magic  "csvidxr3"            8 bytes
//	count  uint64                the records
//	bytes  uint64                the records' bytes
//	count × (the hash's top 48 bits, 6 bytes; uvarint of the offset less
//	         the record before's)
//	sum    uint64                XXH3-64 of the records' bytes
//
// A record takes 7 or 8 bytes for rows a few hundred bytes apart, where
// (hash, offset) whole took 16: what the maps write, and the reduces
// read, of object storage too. An index keeps of a hash its top
// format.FingerprintBits bits, fewer than 48 below 2^42 records (see
// maxRunRecords), and orders records of one fingerprint by offset: the
// bits left out change no byte of it. It is written whole or not at all
// (atomicfile), and read only when its size and sum say it is whole.
const (
	runMagic  = "csvidxr3"
	runHeader = 24
	runBatch  = 1 << 14 // records read or written at a time
	runHash   = 6       // bytes of a record's hash kept: its top 48 bits
)

// maxRunRecords is the most records a partition's index may hold, made of
// run files: its fingerprints, format.FingerprintBits of its records,
// must be no wider than the hashes' bits the runs keep.
const maxRunRecords = 1<<(8*runHash-6) - 1

// runWriter writes a run file.
type runWriter struct {
	f       *atomicfile.File
	err     error // the first write's that failed
	h       *xxh3.Hasher
	n       uint64
	bytes   uint64
	last    uint64 // the offset of the record before
	pending []byte // records encoded, not yet written
}

// createRun starts the run file at path, replacing it atomically at
// commit.
func createRun(path string) (*runWriter, error) {
	f, err := atomicfile.Create(path, false, 0o644)
	if err != nil {
		return nil, err
	}
	rw := &runWriter{f: f, h: xxh3.New()}
	rw.write(make([]byte, runHeader)) // the counts go in at commit
	return rw, nil
}

// add appends rec, whose offset is past the record before's.
func (rw *runWriter) add(rec sorter.Record) {
	h := rec.Hash >> (64 - 8*runHash)
	rw.pending = append(rw.pending, byte(h), byte(h>>8), byte(h>>16), byte(h>>24), byte(h>>32), byte(h>>40))
	rw.pending = binary.AppendUvarint(rw.pending, rec.Offset-rw.last)
	rw.last = rec.Offset
	rw.n++
	if len(rw.pending) >= runBatch*10 {
		rw.flush()
	}
}

// write writes b, unless a write failed before (commit returns that
// error).
func (rw *runWriter) write(b []byte) {
	if rw.err == nil {
		_, rw.err = rw.f.Write(b)
	}
}

// flush writes the records pending (batches of runBatch*10 bytes or more,
// each one write, with no buffer to copy them into), and hashes them.
func (rw *runWriter) flush() {
	rw.write(rw.pending)
	rw.h.Write(rw.pending)
	rw.bytes += uint64(len(rw.pending))
	rw.pending = rw.pending[:0]
}

// commit writes the sum and the header and puts the file in place; it
// returns the sum.
func (rw *runWriter) commit() (uint64, error) {
	rw.flush()
	sum := rw.h.Sum64()
	rw.write(binary.LittleEndian.AppendUint64(nil, sum))
	if rw.err != nil {
		return 0, rw.err
	}
	var head [runHeader]byte
	copy(head[:], runMagic)
	binary.LittleEndian.PutUint64(head[8:], rw.n)
	binary.LittleEndian.PutUint64(head[16:], rw.bytes)
	if _, err := rw.f.WriteAt(head[:], 0); err != nil {
		return 0, err
	}
	return sum, rw.f.Commit()
}

// abort removes what was written.
func (rw *runWriter) abort() { rw.f.Abort() }

// readRun reads the run file at path, which must hold count records whose
// sum is sum (as its map task recorded), a batch at a time into add.
func readRun(path string, count, sum uint64, add func([]sorter.Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	damaged := func(why string) error {
		return fmt.Errorf("%s: a damaged run file (%s): run its map task again", path, why)
	}
	r := io.Reader(f) // read in pieces of 256 KiB: a buffer would copy each byte once more
	var head [runHeader]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return damaged(err.Error())
	}
	n, size := binary.LittleEndian.Uint64(head[8:]), binary.LittleEndian.Uint64(head[16:])
	if string(head[:8]) != runMagic || n != count {
		return damaged("its header")
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if want := runHeader + size + 8; uint64(st.Size()) != want || size < (runHash+1)*count || size > (runHash+10)*count {
		return damaged(fmt.Sprintf("%d bytes, not %d", st.Size(), want))
	}
	h := xxh3.New()
	buf := make([]byte, 0, 256<<10)
	recs := make([]sorter.Record, 0, cap(buf)/(runHash+1)+1) // a piece's records, each runHash+1 bytes at the least
	last, left, rest := uint64(0), count, size
	for rest > 0 {
		// The next piece, and what was left of the one before: whole
		// records are decoded, the rest waits for the next piece.
		k := min(rest, uint64(cap(buf)-len(buf)))
		piece := buf[len(buf) : len(buf)+int(k)]
		if _, err := io.ReadFull(r, piece); err != nil {
			return damaged(err.Error())
		}
		h.Write(piece)
		rest -= k
		buf = buf[:len(buf)+int(k)]
		recs = recs[:0]
		i := 0
		for i < len(buf) && left > 0 {
			if len(buf)-i < runHash {
				break
			}
			d, m := binary.Uvarint(buf[i+runHash:])
			if m <= 0 {
				if m < 0 || rest == 0 {
					return damaged("an offset")
				}
				break // the varint goes on in the next piece
			}
			last += d
			b := buf[i : i+runHash]
			h := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40
			recs = append(recs, sorter.Record{Hash: h << (64 - 8*runHash), Offset: last})
			i += runHash + m
			left--
		}
		if len(recs) > 0 {
			if err := add(recs); err != nil {
				return err
			}
		}
		buf = append(buf[:0], buf[i:]...)
	}
	if left != 0 || len(buf) != 0 {
		return damaged(fmt.Sprintf("%d records, not %d", count-left, count))
	}
	var tail [8]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil {
		return damaged(err.Error())
	}
	if got := binary.LittleEndian.Uint64(tail[:]); got != sum || h.Sum64() != sum {
		return damaged("its sum")
	}
	return nil
}
