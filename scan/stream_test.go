package scan

import (
	"bytes"
	"io"
	"testing"
)

// chunkReader reads data a few bytes at a time, as a pipe may.
type chunkReader struct {
	data  []byte
	sizes []byte // the size of each read, in turn (0 reads 1)
	n     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := 1
	if len(c.sizes) > 0 {
		k = int(c.sizes[c.n%len(c.sizes)]) + 1
	}
	c.n++
	k = min(k, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// FuzzRecordStream: the records, keys and terminations a Stream reads
// from a reader that hands out a few bytes at a time, with a buffer far
// smaller than a record, are those a scanner finds over the whole data.
func FuzzRecordStream(f *testing.F) {
	f.Add([]byte("a,b\n1,\"x\ny\"\r\n\n2,3"), []byte{0, 3, 1}, uint8(1))
	f.Add([]byte("\xef\xbb\xbfk,v\r\n\"\"\"a\",b\n,\n"), []byte{7}, uint8(0))
	f.Add([]byte("x,\"unterminated\n,y"), []byte{}, uint8(1))
	f.Add([]byte("\r\n\r\n1,2\r"), []byte{1, 1}, uint8(0))
	f.Fuzz(func(t *testing.T, data, sizes []byte, col uint8) {
		keyCol := int(col % 4)
		want, err := New(data, ',', keyCol)
		if err != nil {
			t.Fatal(err)
		}
		rs := NewStream(&chunkReader{data: bytes.Clone(data), sizes: sizes}, func(s *Scanner, d []byte) error {
			return s.Init(d, ',', keyCol)
		})
		rs.buf = make([]byte, 4) // grown as records need
		var starts []int
		same := func(rs *Stream, want *Scanner) {
			t.Helper()
			for n := 0; ; n++ {
				got, err := rs.Next()
				if err != nil {
					t.Fatal(err)
				}
				if got != want.Next() {
					t.Fatalf("record %d: stream %v, scanner %v", n, got, !got)
				}
				if !got {
					return
				}
				if rec, w := rs.Record(), data[want.Start():want.End()]; !bytes.Equal(rec, w) || rs.Offset() != int64(want.Start()) {
					t.Fatalf("record %d: %q at %d, want %q at %d", n, rec, rs.Offset(), w, want.Start())
				}
				starts = append(starts, want.Start())
				gk, gok := rs.Scanner().Key()
				wk, wok := want.Key()
				if gok != wok || !bytes.Equal(gk, wk) || rs.Scanner().Terminated() != want.Terminated() {
					t.Fatalf("record %d: key %q %v, want %q %v", n, gk, gok, wk, wok)
				}
			}
		}
		same(rs, want)
		if len(starts) < 2 {
			return
		}
		// From a record's start, as a join reads RIGHT's rows no LEFT row matched.
		from := starts[1+len(sizes)%(len(starts)-1)]
		rs = NewStreamAt(&chunkReader{data: bytes.Clone(data[from:]), sizes: sizes}, int64(from), func(s *Scanner, d []byte) error {
			return s.Init(d, ',', keyCol)
		})
		want, _ = New(data, ',', keyCol)
		want.Reset(from)
		same(rs, want)
	})
}
