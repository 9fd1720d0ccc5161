package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/csvidx/csvidx/internal/mapping"
)

// TestConcat: the concatenation of parts reads as their bytes joined, each
// from its Skip on and with the newline added after a part that lacks
// one, at any offset and length, from several goroutines at once, with
// more parts than are kept open; PartAt finds the part and its offset of
// every byte from a part; a part that is shorter than listed is
// ErrChanged; a part that fails to open fails the read.
func TestConcat(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	header := "id,name\n"
	var parts []ConcatPart
	var want bytes.Buffer
	type origin struct{ part, at int } // where a byte of want comes from; part -1 for an added newline
	var from []origin
	for i := range maxOpenParts + 40 {
		var b bytes.Buffer
		b.WriteString(header)
		for k := range r.IntN(30) {
			fmt.Fprintf(&b, "%d,n%d\n", i*100+k, r.IntN(1000))
		}
		data := b.Bytes()
		if i%3 == 1 && len(data) > len(header) {
			data = data[:len(data)-1] // no newline at its end
		}
		if i%7 == 5 {
			data = data[:len(header)] // the header alone
		}
		name := filepath.Join(dir, fmt.Sprintf("p%03d.csv", i))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p := ConcatPart{Name: name, Size: int64(len(data)), Newline: len(data) > 0 && data[len(data)-1] != '\n'}
		if i > 0 {
			p.Skip = int64(len(header))
		}
		parts = append(parts, p)
		for at := int(p.Skip); at < len(data); at++ {
			want.WriteByte(data[at])
			from = append(from, origin{i, at})
		}
		if p.Newline {
			want.WriteByte('\n')
			from = append(from, origin{-1, 0})
		}
	}
	list, err := NewPartSlice(parts)
	if err != nil {
		t.Fatal(err)
	}
	c := NewConcat("all", list, "t1", func(i int) (Source, error) { return Open(parts[i].Name, mapping.Random) })
	defer c.Close()
	if c.Size() != int64(want.Len()) || c.Identity().Size != c.Size() || c.Identity().ETag != "t1" {
		t.Fatalf("size %d, identity %+v; want %d bytes", c.Size(), c.Identity(), want.Len())
	}
	for off, o := range from {
		if o.part < 0 {
			continue
		}
		if i, at, err := c.PartAt(int64(off)); i != o.part || at != int64(o.at) || err != nil {
			t.Fatalf("PartAt(%d) = %d, %d, %v; want %d, %d", off, i, at, err, o.part, o.at)
		}
	}
	all := make([]byte, c.Size()+10)
	if n, err := c.ReadAt(context.Background(), all, 0); n != want.Len() || err != io.EOF || !bytes.Equal(all[:n], want.Bytes()) {
		t.Fatalf("read whole: %d bytes, %v", n, err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(3, uint64(w)))
			for range 300 {
				off := r.Int64N(c.Size())
				p := make([]byte, 1+r.IntN(700))
				n, err := c.ReadAt(context.Background(), p, off)
				end := min(off+int64(len(p)), c.Size())
				if int64(n) != end-off || !bytes.Equal(p[:n], want.Bytes()[off:end]) || (n < len(p)) != (err == io.EOF) || (err != nil && err != io.EOF) {
					errs[w] = fmt.Errorf("%d bytes at %d: %d, %v", len(p), off, n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	if len(c.srcs) > maxOpenParts {
		t.Errorf("%d parts open, at most %d kept", len(c.srcs), maxOpenParts)
	}
	c.mu.Unlock()

	// A part shorter than listed.
	short := parts[3]
	if err := os.WriteFile(short.Name, []byte(header+"1,a"), 0o644); err != nil {
		t.Fatal(err)
	}
	c2 := NewConcat("all", list, "t1", func(i int) (Source, error) { return Open(parts[i].Name, mapping.Random) })
	defer c2.Close()
	p := make([]byte, parts[3].Len())
	_, base3, _ := list.Part(3)
	if _, err := c2.ReadAt(context.Background(), p, base3); !errors.Is(err, ErrChanged) {
		t.Errorf("a part shorter than listed: %v, want ErrChanged", err)
	}
	// A part that fails to open.
	gone := errors.New("gone")
	c3 := NewConcat("all", list, "t1", func(int) (Source, error) { return nil, gone })
	if _, err := c3.ReadAt(context.Background(), make([]byte, 10), 0); !errors.Is(err, gone) {
		t.Errorf("a part that fails to open: %v", err)
	}
	if _, err := NewPartSlice([]ConcatPart{{Name: "x", Size: 3, Skip: 4}}); err == nil {
		t.Errorf("a part that skips more than it has: no error")
	}
}
