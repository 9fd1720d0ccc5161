package multifile

import (
	"bufio"
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
//	magic  "csvidxr1"            8 bytes
//	count  uint64                the records
//	count × (hash uint64, offset uint64)
//	sum    uint64                XXH3-64 of the records' bytes
//
// It is written whole or not at all (atomicfile), and read only when its
// size and sum say it is whole.
const (
	runMagic   = "csvidxr1"
	runHeader  = 16
	recordSize = 16
	runBatch   = 1 << 14 // records read or written at a time
)

// runWriter writes a run file.
type runWriter struct {
	f       *atomicfile.File
	w       *bufio.Writer
	h       *xxh3.Hasher
	n       uint64
	pending []byte // records encoded, not yet written
}

// createRun starts the run file at path, replacing it atomically at
// commit.
func createRun(path string) (*runWriter, error) {
	f, err := atomicfile.Create(path, false, 0o644)
	if err != nil {
		return nil, err
	}
	rw := &runWriter{f: f, w: bufio.NewWriterSize(f, 256<<10), h: xxh3.New()}
	rw.w.Write(make([]byte, runHeader)) // the count goes in at commit
	return rw, nil
}

// add appends rec.
func (rw *runWriter) add(rec sorter.Record) {
	rw.pending = binary.LittleEndian.AppendUint64(rw.pending, rec.Hash)
	rw.pending = binary.LittleEndian.AppendUint64(rw.pending, rec.Offset)
	rw.n++
	if len(rw.pending) >= runBatch*recordSize {
		rw.flush()
	}
}

// flush writes the records pending, and hashes them.
func (rw *runWriter) flush() {
	rw.w.Write(rw.pending)
	rw.h.Write(rw.pending)
	rw.pending = rw.pending[:0]
}

// commit writes the sum and the header and puts the file in place; it
// returns the sum.
func (rw *runWriter) commit() (uint64, error) {
	rw.flush()
	sum := rw.h.Sum64()
	rw.w.Write(binary.LittleEndian.AppendUint64(nil, sum))
	if err := rw.w.Flush(); err != nil {
		return 0, err
	}
	var head [runHeader]byte
	copy(head[:], runMagic)
	binary.LittleEndian.PutUint64(head[8:], rw.n)
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
	st, err := f.Stat()
	if err != nil {
		return err
	}
	damaged := func(why string) error {
		return fmt.Errorf("%s: a damaged run file (%s): run its map task again", path, why)
	}
	if want := int64(runHeader + count*recordSize + 8); st.Size() != want {
		return damaged(fmt.Sprintf("%d bytes, not %d", st.Size(), want))
	}
	r := bufio.NewReaderSize(f, 256<<10)
	var head [runHeader]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return err
	}
	if string(head[:8]) != runMagic || binary.LittleEndian.Uint64(head[8:]) != count {
		return damaged("its header")
	}
	h := xxh3.New()
	buf := make([]byte, runBatch*recordSize)
	recs := make([]sorter.Record, 0, runBatch)
	for left := count; left > 0; {
		n := min(left, runBatch)
		b := buf[:n*recordSize]
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		h.Write(b)
		recs = recs[:0]
		for i := 0; i < len(b); i += recordSize {
			recs = append(recs, sorter.Record{Hash: binary.LittleEndian.Uint64(b[i:]), Offset: binary.LittleEndian.Uint64(b[i+8:])})
		}
		if err := add(recs); err != nil {
			return err
		}
		left -= n
	}
	var tail [8]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil {
		return err
	}
	if got := binary.LittleEndian.Uint64(tail[:]); got != sum || h.Sum64() != sum {
		return damaged("its sum")
	}
	return nil
}
