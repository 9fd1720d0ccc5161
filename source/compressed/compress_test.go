package compressed

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/csvidx/csvidx/internal/tooltest"
)

// TestCompress: Compress's zstd (with its seek table) and BGZF output
// reads back byte for byte with zstd -d and gzip -d, and through
// OpenZstd and OpenBGZF, in frames of the size asked; an empty input is
// a valid empty file; the seek table lists every frame.
func TestCompress(t *testing.T) {
	data := csvText(40000, 12)
	for _, c := range []struct {
		format, tool string
		frame        int
	}{
		{"zstd", "zstd", 100000},
		{"zstd", "zstd", 0},
		{"bgzf", "gzip", 0},
	} {
		for _, in := range [][]byte{data, nil} {
			tooltest.Need(t, c.tool)
			var out bytes.Buffer
			st, err := Compress(context.Background(), &out, bytes.NewReader(in), CompressOptions{Format: c.format, FrameBytes: c.frame, Threads: 3})
			if err != nil {
				t.Fatal(err)
			}
			frame := c.frame
			switch {
			case c.format == "bgzf":
				frame = BGZFBlockBytes
			case frame == 0:
				frame = DefaultFrameBytes
			}
			if want := (len(in) + frame - 1) / frame; st.Frames != want || st.PlainBytes != int64(len(in)) || st.Bytes != int64(out.Len()) {
				t.Fatalf("%s: %+v, want %d frames of %d bytes", c.format, st, want, len(in))
			}
			p := filepath.Join(t.TempDir(), "a."+c.format)
			if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := exec.Command(c.tool, "-dc", p).Output()
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%s -dc of %s output: %v, equal %v", c.tool, c.format, err, bytes.Equal(got, in))
			}
			open := OpenZstd
			if c.format == "bgzf" {
				open = OpenBGZF
			}
			s, err := open(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Blocks())-1 != st.Frames || s.Size() != int64(len(in)) {
				t.Fatalf("%s: read back as %d frames of %d bytes", c.format, len(s.Blocks())-1, s.Size())
			}
			buf := make([]byte, len(in))
			if n, err := s.ReadAt(context.Background(), buf, 0); n != len(in) || (err != nil && len(in) > 0) || !bytes.Equal(buf, in) {
				t.Fatalf("%s: ReadAt = %d, %v", c.format, n, err)
			}
			s.Close()
			if c.format == "zstd" {
				b := out.Bytes()
				foot := b[len(b)-9:]
				if binary.LittleEndian.Uint32(foot[5:]) != 0x8F92EAB1 || int(binary.LittleEndian.Uint32(foot)) != st.Frames {
					t.Fatalf("seek table footer %x for %d frames", foot, st.Frames)
				}
			}
		}
	}
}

// TestCompressOptions: out-of-range options are errors.
func TestCompressOptions(t *testing.T) {
	for _, o := range []CompressOptions{
		{Format: "xz"}, {Level: 23}, {Format: "bgzf", Level: 10}, {FrameBytes: -1}, {FrameBytes: 65 << 20}, {Format: "bgzf", FrameBytes: 1000},
	} {
		if _, err := Compress(context.Background(), &bytes.Buffer{}, bytes.NewReader([]byte("a")), o); err == nil {
			t.Errorf("Compress with %+v: no error", o)
		}
	}
}
