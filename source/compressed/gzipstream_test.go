package compressed

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/csvidx/csvidx/source"
)

// readStream reads s front to back as a build's scan does, in windows of
// win bytes that start back before the last one's end, as a scan reads a
// record cut at a window's end again, until a window comes short at io.EOF
// once its size is known; it returns the bytes, or the first error.
func readStream(s *GzipStream, win int) ([]byte, error) {
	var out []byte
	for off := int64(0); ; {
		p := make([]byte, win)
		n, err := s.ReadAt(context.Background(), p, off)
		switch {
		case errors.Is(err, io.EOF) && n < win:
			if _, ok := s.Known(); !ok {
				return nil, errors.New("a short read before the size was known")
			}
			return append(out[:off], p[:n]...), nil
		case err != nil:
			return nil, err
		}
		out = append(out[:off], p[:n]...)
		off += int64(n) - int64(n)/5 // the next window starts back, in this one
	}
}

// TestGzipStream: a GzipStream read front to back as a scan reads it gives
// the plain bytes, whole, with its size known only at the end; its table
// is the walk's (OpenGzip's); a read of bytes it no longer keeps waits for
// the walk's end and reads through the table; Close stops a walk half
// done; a damaged member fails the reads, never ending them as if whole.
func TestGzipStream(t *testing.T) {
	data := csvText(600000, 3) // tens of MiB: more than the stream keeps
	for _, c := range []struct{ name, tool, cmd string }{
		{"Gzip", "gzip", `gzip -1 -c "$IN" > "$OUT"`},
		{"Pigz", "pigz", `pigz -p 2 -c "$IN" > "$OUT"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := gzipFile(t, data, c.tool, c.cmd)
			s, err := StreamGzip(path, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.Known(); ok {
				t.Errorf("the size is known before the walk's end")
			}
			got, err := readStream(s, 3<<20)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read front to back: %d bytes, %v; want %d bytes", len(got), err, len(data))
			}
			if n, ok := s.Known(); !ok || n != int64(len(data)) || s.Size() != n {
				t.Fatalf("Known = %d, %v; Size = %d; want %d", n, ok, s.Size(), len(data))
			}
			walked, err := OpenGzip(path, nil, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			defer walked.Close()
			if !bytes.Equal(s.Table(), walked.Table()) || s.Covered() != walked.Covered() {
				t.Fatalf("the stream's table is not the walk's")
			}
			checkReads(t, s, data, 50, 1<<16) // through the table, now
			s.Close()

			// A read far behind the walk waits for its end.
			s, err = StreamGzip(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			far := make([]byte, 100)
			if _, err := s.ReadAt(context.Background(), far, int64(len(data)-200)); err != nil || !bytes.Equal(far, data[len(data)-200:len(data)-100]) {
				t.Fatalf("a read near the end: %v", err)
			}
			if _, err := s.ReadAt(context.Background(), far, 10); err != nil || !bytes.Equal(far, data[10:110]) {
				t.Fatalf("a read of bytes dropped: %v", err)
			}
			s.Close()

			// Closed half way: the walk stops, and Close returns.
			s, err = StreamGzip(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ReadAt(context.Background(), far, 1000); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
	// A byte flipped: the reads fail before they reach the end.
	path := gzipFile(t, data[:3<<20], "gzip", `gzip -c "$IN" > "$OUT"`)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x04
	bad := writeFile(t, "bad.csv.gz", b)
	s, err := StreamGzip(bad, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := readStream(s, 1<<20); err == nil {
		t.Fatalf("a damaged file read whole: %d bytes", len(got))
	} else if ce := new(CorruptError); !errors.As(err, &ce) {
		t.Fatalf("a damaged file: %v, want a *CorruptError", err)
	}
	if _, ok := s.Known(); ok {
		t.Fatalf("a damaged file's size is known")
	}
	var _ source.Walking = s
}
