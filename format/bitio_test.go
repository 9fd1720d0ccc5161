package format

import (
	"math/rand/v2"
	"testing"
)

// TestBitStream writes random numbers in every code and reads them back,
// and checks each code's length function against what it wrote.
func TestBitStream(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for round := range 200 {
		type item struct {
			kind, k, width int
			v              uint64
		}
		var items []item
		buf := make([]byte, 4096)
		w := bitWriter{buf: buf}
		for w.n < 8*len(buf)-300 {
			it := item{kind: r.IntN(3), width: 1 + r.IntN(64)}
			it.v = r.Uint64() >> uint(64-it.width)
			switch it.kind {
			case 1:
				it.v = max(it.v>>uint(r.IntN(64)), 1)
			case 2:
				it.k = r.IntN(it.width + 1)
				it.v >>= uint(r.IntN(it.width + 1))
			}
			before := w.n
			switch it.kind {
			case 0:
				w.raw(it.v, it.width)
			case 1:
				w.gamma(it.v)
				if got := w.n - before; got != gammaLen(it.v) {
					t.Fatalf("gamma(%d) wrote %d bits, gammaLen says %d", it.v, got, gammaLen(it.v))
				}
			case 2:
				w.rice(it.v, it.k, it.width)
				if got := w.n - before; got != riceLen(it.v, it.k, it.width) {
					t.Fatalf("rice(%d, %d) wrote %d bits, riceLen says %d", it.v, it.k, got, riceLen(it.v, it.k, it.width))
				}
			}
			items = append(items, it)
		}
		rd := bitReader{buf: buf, n: w.n}
		for i, it := range items {
			var got uint64
			switch it.kind {
			case 0:
				got = rd.raw(it.width)
			case 1:
				got = rd.gamma()
			case 2:
				got = rd.rice(it.k, it.width)
			}
			if got != it.v || rd.bad {
				t.Fatalf("round %d, item %d (%+v): read %d, bad %v", round, i, it, got, rd.bad)
			}
		}
		if rd.pos != w.n {
			t.Fatalf("round %d: read %d bits of %d", round, rd.pos, w.n)
		}
		if rd.raw(1); !rd.bad {
			t.Fatalf("round %d: a read past the stream's end is not bad", round)
		}
	}
}

// TestBitReaderBounded: zeros to the end of the stream, or more than a
// code allows, are an error, not a read past the buffer.
func TestBitReaderBounded(t *testing.T) {
	buf := make([]byte, 64)
	r := bitReader{buf: buf, n: len(buf) * 8}
	if r.gamma(); !r.bad {
		t.Fatal("gamma of all zeros is not bad")
	}
	buf[60] = 1
	r = bitReader{buf: buf, n: len(buf) * 8}
	if r.zeros(100); !r.bad {
		t.Fatal("480 zeros read as a count of at most 100")
	}
	r = bitReader{buf: buf, n: 400}
	if r.zeros(1000); !r.bad {
		t.Fatal("a one past the stream's end was read")
	}
}
