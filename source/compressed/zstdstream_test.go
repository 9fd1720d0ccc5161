package compressed

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestZstdStream: a zstd file with a frame larger than maxFrame (in one
// frame, with or without its plain size in the header, or after frames
// that are not) opens for a build as a ZstdStream that reads it whole and
// at random offsets as the plain bytes, decoding again from a frame's start
// for bytes it no longer keeps, with the table the frames' headers give;
// through that table, for a lookup, every read is a *FrameError. A file
// whose frames are all small opens as a Framed.
func TestZstdStream(t *testing.T) {
	defer func(f int64, c int, k int64) { maxFrame, zstdChunk, zstdKeep = f, c, k }(maxFrame, zstdChunk, zstdKeep)
	maxFrame, zstdChunk, zstdKeep = 100000, 10000, 50000
	data := csvText(20000, 21)
	third := len(data) / 3
	for _, c := range []struct{ name, cmd string }{
		{"OneFrame", `zstd -q -3 -c "$IN" > "$OUT"`},
		{"NoContentSize", `cat "$IN" | zstd -q -c > "$OUT"`},
		{"AfterSmallFrames", `head -c ` + strconv.Itoa(third) + ` "$IN" | split -b 30000 - "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT" && tail -c +` + strconv.Itoa(third+1) + ` "$IN" | zstd -q -c >> "$OUT"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			zs := zstdFile(t, data, "zstd", c.cmd)
			src, err := openZstdStreamed(zs)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			s, ok := src.(*ZstdStream)
			if !ok {
				t.Fatalf("opened as a %T, want a *ZstdStream", src)
			}
			if n, ok := s.Known(); !ok || n != int64(len(data)) {
				t.Fatalf("Known() = %d, %v; want %d", n, ok, len(data))
			}
			blocks, err := ScanZstd(s.f, s.Identity().Size, zs)
			if err != nil || !bytes.Equal(s.Table(), EncodeTable(blocks)) {
				t.Fatalf("Table() is not ScanZstd's: %v", err)
			}
			checkReads(t, s, data, 100, 30000)

			looked, err := OpenZstdTable(zs, blocks)
			if err != nil {
				t.Fatal(err)
			}
			defer looked.Close()
			var fe *FrameError
			if _, err := looked.ReadAt(context.Background(), make([]byte, 10), 0); !errors.As(err, &fe) {
				t.Errorf("a lookup's read = %v, want a *FrameError", err)
			}
		})
	}
	small := zstdFile(t, data, "zstd", `split -b 90000 "$IN" "$IN.part." && for p in "$IN".part.*; do zstd -q -c "$p"; done > "$OUT"`)
	src, err := openZstdStreamed(small)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, ok := src.(*Framed); !ok {
		t.Errorf("frames of 90000 bytes opened as a %T, want a *Framed", src)
	}
}

// TestZstdStreamDamage: a flipped byte in a ZstdStream's frame is a
// *CorruptError for the read that reaches it and for every read after
// it, and the bytes read before it are the plain ones; a file cut short
// is one when opened.
func TestZstdStreamDamage(t *testing.T) {
	defer func(f int64, c int) { maxFrame, zstdChunk = f, c }(maxFrame, zstdChunk)
	maxFrame, zstdChunk = 100000, 10000
	data := csvText(20000, 22)
	zs := zstdFile(t, data, "zstd", `zstd -q -c "$IN" > "$OUT"`)
	comp, _ := os.ReadFile(zs)
	dir := filepath.Dir(zs)
	for _, at := range []int{len(comp) / 2, len(comp) - 2} {
		bad := bytes.Clone(comp)
		bad[at] ^= 0x10
		p := filepath.Join(dir, "bad.zst")
		os.WriteFile(p, bad, 0o644)
		src, err := openZstdStreamed(p)
		if err != nil {
			t.Fatal(err)
		}
		var ce *CorruptError
		buf := make([]byte, len(data))
		n, err := src.ReadAt(context.Background(), buf, 0)
		if !errors.As(err, &ce) || !bytes.Equal(buf[:n], data[:n]) {
			t.Errorf("flipped byte %d: ReadAt = %d, %v; want a *CorruptError", at, n, err)
		}
		if _, err := src.ReadAt(context.Background(), buf[:10], 0); !errors.As(err, &ce) {
			t.Errorf("flipped byte %d: the read after: %v, want the *CorruptError again", at, err)
		}
		src.Close()
	}
	cut := filepath.Join(dir, "cut.zst")
	os.WriteFile(cut, comp[:len(comp)/2], 0o644)
	var ce *CorruptError
	if src, err := openZstdStreamed(cut); !errors.As(err, &ce) {
		if err == nil {
			src.Close()
		}
		t.Errorf("a file cut short: %v, want a *CorruptError", err)
	}
}
