package main

// The writer hands chunk i to worker i mod workers and writes the chunks back in order. Each
// worker owns two chunk buffers, so it fills one while the writer drains the other, and
// memory stays at 2 × workers × a few MiB however many rows are asked for.

import (
	"io"
	"sync"
)

const bom = "\xef\xbb\xbf"

// summary is what generate wrote, for -stats and -keys-out.
type summary struct {
	bytes          int64
	heavyRows      int64
	heavySample    []uint64 // heavy ids that occur, first seen first
	ordinarySample []uint64 // ordinary ids that occur, first seen first
	seen           []uint64 // bit k set when ordinary id ordinaryFirst+k occurs; nil unless trackKeys
}

// worker fills the chunks i ≡ k (mod workers).
type worker struct {
	gen  *rowGen
	free chan *chunk // buffers the writer has finished with
	full chan *chunk // filled chunks, in the worker's order
}

func (w *worker) run(l *layout, k, workers, chunks int64, stop <-chan struct{}) {
	for i := k; i < chunks; i += workers {
		var c *chunk
		select {
		case c = <-w.free:
		case <-stop:
			return
		}
		w.gen.fill(c, uint64(i), int(min(chunkRows, l.rows-i*chunkRows)))
		w.full <- c // never blocks: full has room for both of this worker's buffers
	}
}

// generate writes the whole CSV to w.
func generate(w io.Writer, l *layout) (summary, error) {
	var s summary
	term := l.terminator
	chunks := (l.rows + chunkRows - 1) / chunkRows

	head := header + term
	if l.bom {
		head = bom + head
	}
	if chunks == 0 && l.unterminated {
		head = head[:len(head)-len(term)]
	}
	if err := s.write(w, []byte(head)); err != nil {
		return s, err
	}
	if chunks == 0 {
		return s, nil
	}

	nw := min(int64(l.threads), chunks)
	workers := make([]worker, nw)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for k := range workers {
		wk := &workers[k]
		wk.gen = newRowGen(l)
		wk.free = make(chan *chunk, 2)
		wk.full = make(chan *chunk, 2)
		wk.free <- &chunk{}
		wk.free <- &chunk{}
		wg.Go(func() { wk.run(l, int64(k), nw, chunks, stop) })
	}
	for i := range chunks {
		wk := &workers[i%nw]
		c := <-wk.full
		buf := c.buf
		if i == chunks-1 && l.unterminated {
			buf = buf[:len(buf)-len(term)]
		}
		if err := s.write(w, buf); err != nil {
			close(stop)
			wg.Wait()
			return s, err
		}
		s.add(c)
		wk.free <- c
	}
	wg.Wait()

	if l.trackKeys {
		s.seen = workers[0].gen.seen
		for _, wk := range workers[1:] {
			for j, x := range wk.gen.seen {
				s.seen[j] |= x
			}
		}
	}
	return s, nil
}

func (s *summary) write(w io.Writer, b []byte) error {
	n, err := w.Write(b)
	s.bytes += int64(n)
	return err
}

// add takes in the statistics of the next chunk.
func (s *summary) add(c *chunk) {
	s.heavyRows += c.heavyRows
	for _, id := range c.heavySample {
		s.heavySample = addSample(s.heavySample, id)
	}
	for _, id := range c.ordinarySample {
		s.ordinarySample = addSample(s.ordinarySample, id)
	}
}
