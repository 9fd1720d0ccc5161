package compressed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source"
)

// csvText returns a CSV of n rows of varied lengths, some quoted across
// lines, from seed.
func csvText(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	b.WriteString("id,user,comment\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,u%d,", i, r.IntN(1000))
		switch r.IntN(10) {
		case 0:
			fmt.Fprintf(&b, "\"two\nlines %d\"", r.Int())
		case 1:
			b.Write(bytes.Repeat([]byte{'x'}, r.IntN(3000)))
		default:
			fmt.Fprintf(&b, "c%x", r.Int64())
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// bgzipFile returns the path of a file holding data compressed by bgzip.
func bgzipFile(t *testing.T, data []byte) string {
	return tooltest.Compress(t, data, "bgzip", `bgzip -c "$IN" > "$OUT"`, "a.csv.gz")
}

// TestBGZF: bgzip's output reads back, whole and at random offsets, as the
// plain bytes; its table covers the plain size; splits are member starts.
func TestBGZF(t *testing.T) {
	data := csvText(20000, 1)
	gz := bgzipFile(t, data)
	head := make([]byte, 18)
	f, _ := os.Open(gz)
	f.Read(head)
	f.Close()
	if !IsBGZF(head) {
		t.Fatalf("IsBGZF(%x) = false", head)
	}
	s, err := OpenBGZF(gz, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Size() != int64(len(data)) {
		t.Fatalf("Size = %d, want %d", s.Size(), len(data))
	}
	if len(s.Blocks()) < 10 {
		t.Fatalf("%d blocks for %d bytes", len(s.Blocks()), len(data))
	}
	checkReads(t, s, data, 500, 200000)
	ctx := context.Background()
	if n, err := s.ReadAt(ctx, make([]byte, 1), s.Size()); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt at the end = %d, %v", n, err)
	}
	cuts := s.Splits(1 << 20)
	for i, c := range cuts {
		if i > 0 && c-cuts[i-1] < 1<<20 {
			t.Fatalf("splits %v: less than the target apart", cuts)
		}
		if j := blockAt(s.Blocks(), c); s.Blocks()[j].Plain != c {
			t.Fatalf("split %d is not a member's start", c)
		}
	}
}

// TestBGZFGivenTable: a source opened with a table reads as one that
// walked the file.
func TestBGZFGivenTable(t *testing.T) {
	data := csvText(5000, 3)
	gz := bgzipFile(t, data)
	walked, err := OpenBGZF(gz, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer walked.Close()
	s, err := OpenBGZF(gz, walked.Blocks())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := make([]byte, len(data))
	if n, err := s.ReadAt(context.Background(), p, 0); n != len(data) || err != nil || !bytes.Equal(p, data) {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
}

// TestBGZFDamage: a flipped byte in a member's data is a *CorruptError,
// never other bytes; a truncated file is one when walked and when read
// through the old table; a file that is not BGZF is one when walked.
func TestBGZFDamage(t *testing.T) {
	data := csvText(5000, 4)
	dir := t.TempDir()
	gz := bgzipFile(t, data)
	good, err := OpenBGZF(gz, nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks := good.Blocks()
	good.Close()
	comp, _ := os.ReadFile(gz)
	ctx := context.Background()
	var ce *CorruptError
	for _, at := range []int64{blocks[1].Comp + 30, blocks[2].Comp + 200, blocks[2].Comp - 5, blocks[1].Comp + 16} {
		bad := bytes.Clone(comp)
		bad[at] ^= 0x40
		p := filepath.Join(dir, "bad.gz")
		os.WriteFile(p, bad, 0o644)
		s, err := OpenBGZF(p, blocks)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(data))
		n, err := s.ReadAt(ctx, buf, 0)
		s.Close()
		if !errors.As(err, &ce) {
			t.Errorf("flipped byte %d: ReadAt = %d, %v; want a *CorruptError", at, n, err)
		}
		if !bytes.Equal(buf[:n], data[:n]) {
			t.Errorf("flipped byte %d: wrong bytes before the error", at)
		}
	}
	cut := filepath.Join(dir, "cut.gz")
	os.WriteFile(cut, comp[:blocks[3].Comp+100], 0o644)
	if _, err := OpenBGZF(cut, nil); !errors.As(err, &ce) {
		t.Errorf("walking a truncated file: %v", err)
	}
	s, err := OpenBGZF(cut, blocks)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadAt(ctx, make([]byte, 10), blocks[4].Plain); !errors.As(err, &ce) {
		t.Errorf("reading past the end of a truncated file: %v", err)
	}
	s.Close()
	plain := filepath.Join(dir, "plain.gz")
	if err := os.WriteFile(plain, []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBGZF(plain, nil); !errors.As(err, &ce) {
		t.Errorf("walking plain gzip: %v", err)
	}
}

// checkReads fails unless s reads as data: the whole stream, and reads of
// up to maxLen bytes at random offsets, io.EOF exactly when they reach the
// end.
func checkReads(t *testing.T, s source.Source, data []byte, reads, maxLen int) {
	t.Helper()
	ctx := context.Background()
	got, err := io.ReadAll(io.NewSectionReader(source.ReaderAt(ctx, s), 0, s.Size()))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the whole stream: %v, equal %v", err, bytes.Equal(got, data))
	}
	r := rand.New(rand.NewPCG(uint64(len(data)), uint64(reads)))
	for range reads {
		off := r.Int64N(int64(len(data)))
		p := make([]byte, r.IntN(maxLen))
		n, err := s.ReadAt(ctx, p, off)
		want := data[off:min(int64(len(data)), off+int64(len(p)))]
		if n != len(want) || !bytes.Equal(p[:n], want) || (n < len(p)) != (err == io.EOF) || err != nil && err != io.EOF {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v", len(p), off, n, err)
		}
	}
}
