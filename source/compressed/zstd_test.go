package compressed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/csvidx/csvidx/internal/tooltest"
	"github.com/csvidx/csvidx/source"
)

// zstdFile returns the path of a file holding data compressed by the
// shell script cmd with tool (see tooltest.Compress).
func zstdFile(t *testing.T, data []byte, tool, cmd string) string {
	return tooltest.Compress(t, data, tool, cmd, "a.csv.zst")
}

// TestZstd: the files zstd and pzstd write, in one frame or many, with or
// without the plain size in the frame header, with skippable frames, and
// concatenated, read back whole and at random offsets as the plain bytes.
func TestZstd(t *testing.T) {
	data := csvText(30000, 5)
	half := len(data) / 2
	for _, c := range []struct {
		name, tool, cmd string
		frames          int // at least
	}{
		{"OneFrame", "zstd", `zstd -q -3 -c "$IN" > "$OUT"`, 1},
		{"NoContentSize", "zstd", `cat "$IN" | zstd -q -3 -c > "$OUT"`, 1},
		{"Pzstd", "pzstd", `pzstd -q -p 2 -c "$IN" > "$OUT"`, 1},
		{"Concatenated", "zstd", `head -c ` + strconv.Itoa(half) + ` "$IN" | zstd -q -c > "$OUT" && tail -c +` + strconv.Itoa(half+1) + ` "$IN" | zstd -q -c >> "$OUT"`, 2},
		{"Blocks", "zstd", `split -b 100000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			zs := zstdFile(t, data, c.tool, c.cmd)
			s, err := OpenZstd(zs, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Size() != int64(len(data)) || len(s.Blocks())-1 < c.frames {
				t.Fatalf("Size %d (want %d), %d frames", s.Size(), len(data), len(s.Blocks())-1)
			}
			checkReads(t, s, data, 200, 300000)
		})
	}
}

// TestZstdDamage: a flipped byte inside a frame (checksummed) and a frame
// the table misplaces are *CorruptErrors; a truncated file is one when
// walked.
func TestZstdDamage(t *testing.T) {
	data := csvText(20000, 7)
	zs := zstdFile(t, data, "zstd", `split -b 200000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`)
	good, err := OpenZstd(zs, nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks := good.Blocks()
	good.Close()
	comp, _ := os.ReadFile(zs)
	dir := filepath.Dir(zs)
	var ce *CorruptError
	for _, at := range []int64{blocks[1].Comp + 100, blocks[1].Comp + 2, blocks[2].Comp - 2} {
		bad := bytes.Clone(comp)
		bad[at] ^= 0x21
		p := filepath.Join(dir, "bad.zst")
		os.WriteFile(p, bad, 0o644)
		s, err := OpenZstd(p, blocks)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(data))
		n, err := s.ReadAt(context.Background(), buf, 0)
		s.Close()
		if !errors.As(err, &ce) || !bytes.Equal(buf[:n], data[:n]) {
			t.Errorf("flipped byte %d: ReadAt = %d, %v; want a *CorruptError", at, n, err)
		}
	}
	cut := filepath.Join(dir, "cut.zst")
	os.WriteFile(cut, comp[:blocks[2].Comp+50], 0o644)
	if _, err := OpenZstd(cut, nil); !errors.As(err, &ce) {
		t.Errorf("walking a truncated file: %v", err)
	}
}

// TestZstdLargeFrame: a frame larger than maxFrame (zstd's one frame for a
// whole file) is a *FrameError when the file is opened, walked or through
// a table, never a read that decodes it whole.
func TestZstdLargeFrame(t *testing.T) {
	defer func(old int64) { maxFrame = old }(maxFrame)
	maxFrame = 100000
	data := csvText(20000, 8)
	one := zstdFile(t, data, "zstd", `zstd -q -c "$IN" > "$OUT"`)
	var fe *FrameError
	if _, err := OpenZstd(one, nil); !errors.As(err, &fe) || fe.Plain != int64(len(data)) || !strings.Contains(err.Error(), "pzstd") {
		t.Fatalf("OpenZstd of one frame of %d bytes = %v, want a *FrameError", len(data), err)
	}
	if _, err := OpenZstd(one, []Block{{0, 0}, {int64(len(data)), int64(len(data))}}); !errors.As(err, &fe) {
		t.Fatalf("OpenZstd through a table = %v, want a *FrameError", err)
	}
	many := zstdFile(t, data, "zstd", `split -b 90000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`)
	s, err := OpenZstd(many, nil)
	if err != nil {
		t.Fatalf("frames of 90000 bytes: %v", err)
	}
	s.Close()
}

// TestFramedConcurrent: readers on several goroutines, whose reads share
// frames, each get the plain bytes (a frame decoded for one of them is
// waited for by the others, not decoded again; go test -race checks the
// sharing).
func TestFramedConcurrent(t *testing.T) {
	data := csvText(30000, 10)
	zs := zstdFile(t, data, "zstd", `split -b 200000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`)
	s, err := OpenZstd(zs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	readConcurrently(t, s, data, 11)
}

// readConcurrently reads s, whose plain bytes are data, at random offsets
// from 8 goroutines at once, 100 reads of 50000 bytes each, and fails the
// test on a read that errs or differs.
func readConcurrently(t *testing.T, s source.Source, data []byte, seed uint64) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), seed))
			p := make([]byte, 50000)
			for range 100 {
				off := r.Int64N(int64(len(data) - len(p)))
				if _, err := s.ReadAt(context.Background(), p, off); err != nil || !bytes.Equal(p, data[off:off+int64(len(p))]) {
					errs <- fmt.Errorf("read at %d: %v", off, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPrefetch: frames decoded ahead read back as the plain bytes; offsets
// outside the file are passed over; a frame that does not decode is left
// for the read, which reports it.
func TestPrefetch(t *testing.T) {
	data := csvText(30000, 13)
	zs := zstdFile(t, data, "zstd", `split -b 60000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`)
	s, err := OpenZstd(zs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	offs := []int64{-5, int64(len(data)) + 9, 70000, 5, 300000, 70001, 900000}
	s.Prefetch(offs)
	for _, off := range offs[2:] {
		p := make([]byte, 100)
		if _, err := s.ReadAt(context.Background(), p, off); err != nil || !bytes.Equal(p, data[off:off+100]) {
			t.Fatalf("read at %d after Prefetch: %v", off, err)
		}
	}
	comp, _ := os.ReadFile(zs)
	bad := bytes.Clone(comp)
	bad[s.Blocks()[3].Comp+40] ^= 0x55
	p := filepath.Join(t.TempDir(), "bad.zst")
	os.WriteFile(p, bad, 0o644)
	b, err := OpenZstd(p, s.Blocks())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Prefetch([]int64{s.Blocks()[3].Plain, s.Blocks()[1].Plain})
	var ce *CorruptError
	if _, err := b.ReadAt(context.Background(), make([]byte, 10), s.Blocks()[3].Plain); !errors.As(err, &ce) {
		t.Fatalf("read of a damaged frame after Prefetch: %v, want a *CorruptError", err)
	}
}

// TestBlockCacheBytes: the cache keeps at most cachedBytes, dropping the
// oldest frames first, and finds what it keeps.
func TestBlockCacheBytes(t *testing.T) {
	var c blockCache
	frame := make([]byte, cachedBytes/3)
	for i := range 5 {
		c.mu.Lock()
		c.keep(i, frame)
		c.mu.Unlock()
	}
	if c.bytes > cachedBytes {
		t.Fatalf("the cache holds %d bytes, more than %d", c.bytes, cachedBytes)
	}
	dec := func(int) ([]byte, error) { return nil, errors.New("decoded again") }
	for _, i := range []int{3, 4} {
		if _, err := c.load(i, dec); err != nil {
			t.Errorf("frame %d, among the newest, is not kept: %v", i, err)
		}
	}
	if _, err := c.load(0, dec); err == nil {
		t.Errorf("frame 0, the oldest, is kept past the cache's bytes")
	}
}

// TestZstdNoChecksum: a frame without its content checksum is refused,
// walked or read through a table: a damaged one would decode to other
// bytes unseen.
func TestZstdNoChecksum(t *testing.T) {
	data := csvText(5000, 14)
	checked := zstdFile(t, data, "zstd", `zstd -q -c "$IN" > "$OUT"`)
	s, err := OpenZstd(checked, nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks := s.Blocks()
	s.Close()
	bare := zstdFile(t, data, "zstd", `zstd -q --no-check -c "$IN" > "$OUT"`)
	if _, err := OpenZstd(bare, nil); err == nil || !strings.Contains(err.Error(), "without a checksum") {
		t.Fatalf("OpenZstd of a frame without a checksum = %v", err)
	}
	blocks[len(blocks)-1].Comp -= 4 // the same frame less its checksum
	s, err = OpenZstd(bare, blocks)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ReadAt(context.Background(), make([]byte, 10), 0); err == nil || !strings.Contains(err.Error(), "without a checksum") {
		t.Fatalf("ReadAt through a table = %v", err)
	}
}
