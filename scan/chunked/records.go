package chunked

import (
	"errors"
	"io"

	"github.com/csvidx/csvidx/internal/xxh3"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/sorter"
)

// errChunkFull stops a chunk's scan when it holds as many records as it may:
// the stitcher scans the rest.
var errChunkFull = errors.New("chunk full")

// An adder takes a full buffer of records from scanRange and returns the
// buffer to go on with.
type adder func([]sorter.Record) ([]sorter.Record, error)

// scanRange scans the records of the CSV that start at or after from and
// before limit, appending the index records of key j to bufs[j] and
// calling adds[j] whenever it is full, and once at the end if it holds
// any. It returns where it stopped: the end of the last record read. If an
// adder returns errChunkFull before the range's end, scanRange stops after
// that record and returns it, with where it stopped and what it counted: a
// scan from that point finds the rest.
func (s *Scan) scanRange(from, limit int, bufs [][]sorter.Record, adds []adder) (int, Tally, error) {
	if len(s.Keys) > 1 {
		return s.scanRangeKeys(from, limit, bufs, adds)
	}
	t := Tally{Resume: -1}
	batch := bufs[0][:0]
	var long *xxh3.Hasher // for keys the scanner calls long
	stop, err := s.walkRange(from, limit, &t, s.initScanner, func(sc *scan.Scanner, k *walk) (bool, error) {
		var cut bool
		var err error
		batch, cut, err = s.readWindow(sc, k, batch, adds[0], &t, &long)
		return cut, err
	})
	if err != nil {
		return stop, t, err
	}
	if len(batch) > 0 {
		// errChunkFull here comes with the range read to its end: success.
		if _, err := adds[0](batch); err != nil && err != errChunkFull {
			return 0, t, err
		}
	}
	return stop, t, nil
}

// initScanner sets sc on data for s's key, of one column or composite.
func (s *Scan) initScanner(sc *scan.Scanner, data []byte) error {
	if s.KeyCols != nil {
		return sc.InitComposite(data, s.Delim, s.KeyCols)
	}
	return sc.Init(data, s.Delim, s.KeyCol)
}

// readWindow reads the records of k's window with sc, appending their
// index records to batch and calling add whenever it is full, and counts
// them in t. It stops before a record that runs to the window's end short
// of the input's end, and reports that it did (see walk); or at an error
// from add, errChunkFull included. Offsets are the input's: the window's
// base plus the scanner's.
func (s *Scan) readWindow(sc *scan.Scanner, k *walk, batch []sorter.Record, add adder, t *Tally, long **xxh3.Hasher) ([]sorter.Record, bool, error) {
	base, custom := k.w.Base, s.Hash
	var rows, short uint64
	var cut bool
	var err error
	for sc.Next() {
		if !sc.Terminated() {
			if !k.last() {
				cut = true // read it again in the next window
				break
			}
			t.Resume = int64(base + sc.Start())
		}
		rows++
		var h uint64
		if sc.LongKey() && custom == nil {
			h = hashLong(sc.WriteKey, long) // only xxh3 can take a key in pieces
		} else if key, ok := sc.Key(); ok {
			if custom != nil {
				h = custom(key)
			} else {
				h = xxh3.Hash(key) // a direct call: this loop runs once per row
			}
		} else {
			short++
			continue
		}
		batch = append(batch, sorter.Record{Hash: h, Offset: uint64(base + sc.Start())})
		if len(batch) == cap(batch) {
			if batch, err = add(batch); err != nil {
				break
			}
		}
	}
	t.Rows += rows
	t.Short[0] += short
	return batch, cut, err
}

// scanRangeKeys is scanRange for a scan of several keys: each record is
// read once, and each of its keys makes a record for its own buffer.
func (s *Scan) scanRangeKeys(from, limit int, bufs [][]sorter.Record, adds []adder) (int, Tally, error) {
	t := Tally{Resume: -1}
	for j := range bufs {
		bufs[j] = bufs[j][:0]
	}
	var long *xxh3.Hasher
	init := func(sc *scan.Scanner, data []byte) error { return sc.InitKeys(data, s.Delim, s.Keys) }
	stop, err := s.walkRange(from, limit, &t, init, func(sc *scan.Scanner, k *walk) (bool, error) {
		return s.readWindowKeys(sc, k, bufs, adds, &t, &long)
	})
	if err != nil {
		return stop, t, err
	}
	for j := range bufs {
		if len(bufs[j]) > 0 {
			if _, err := adds[j](bufs[j]); err != nil && err != errChunkFull {
				return 0, t, err
			}
		}
	}
	return stop, t, nil
}

// readWindowKeys is readWindow for a scan of several keys. Once an adder
// returns errChunkFull, it stops after the record, which every key has:
// the rest is the stitcher's.
func (s *Scan) readWindowKeys(sc *scan.Scanner, k *walk, bufs [][]sorter.Record, adds []adder, t *Tally, long **xxh3.Hasher) (bool, error) {
	base, custom := k.w.Base, s.Hash
	for sc.Next() {
		if !sc.Terminated() {
			if !k.last() {
				return true, nil // read it again in the next window
			}
			t.Resume = int64(base + sc.Start())
		}
		t.Rows++
		full := false
		for j := range bufs {
			var h uint64
			if sc.LongKeyOf(j) && custom == nil {
				h = hashLong(func(w io.Writer) error { return sc.WriteKeyOf(j, w) }, long)
			} else if key, ok := sc.KeyOf(j); ok {
				if custom != nil {
					h = custom(key)
				} else {
					h = xxh3.Hash(key)
				}
			} else {
				t.Short[j]++
				continue
			}
			bufs[j] = append(bufs[j], sorter.Record{Hash: h, Offset: uint64(base + sc.Start())})
			if len(bufs[j]) == cap(bufs[j]) {
				var err error
				if bufs[j], err = adds[j](bufs[j]); err == errChunkFull {
					full = true
				} else if err != nil {
					return false, err
				}
			}
		}
		if full {
			return false, errChunkFull
		}
	}
	return false, nil
}

// toSink returns an adder that hands each batch to sink.Add and reuses the
// batch buffer.
func toSink(sink Sink) adder {
	return func(b []sorter.Record) ([]sorter.Record, error) { return b[:0], sink.Add(b) }
}

// collect returns an adder that keeps every record in the one buffer,
// growing it when full up to limit records, and leaves the records in
// *recs: a chunk's records are gathered where they are scanned, not copied
// from batches. At limit records it returns errChunkFull.
func collect(recs *[]sorter.Record, limit int) adder {
	return func(b []sorter.Record) ([]sorter.Record, error) {
		*recs = b
		if len(b) >= limit {
			return b, errChunkFull
		}
		if len(b) == cap(b) {
			// Room for as many again, up to limit, and no more: append's
			// growth would round the array up past it.
			grown := make([]sorter.Record, len(b), len(b)+min(len(b), limit-len(b)))
			copy(grown, b)
			b = grown
		}
		return b, nil
	}
}

// hashLong hashes the current key, a long one that needs unescaping (over
// 64 KiB), as write streams it: a key field of gigabytes takes no
// memory. The result is xxh3.Hash of the decoded key.
func hashLong(write func(io.Writer) error, h **xxh3.Hasher) uint64 {
	if *h == nil {
		*h = xxh3.New()
	}
	(*h).Reset()
	write(*h) // a Hasher's Write never fails
	return (*h).Sum64()
}
