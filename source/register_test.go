package source

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/csvidx/csvidx/internal/mapping"
)

// bgzfEOF is bgzip's end marker, an empty BGZF member: the header of every
// bgzip file, with its 'BC' subfield (BSIZE 27: the member is 28 bytes).
const bgzfEOF = "\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC\x02\x00\x1b\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// fakeMagic marks the files the fake backend reads: bzip2 data (a magic
// Compression tells) whose first block says FAKE after its magic.
const fakeMagic = "BZh91AY&SYFAKE"

// fakeBackend reads the files that start with fakeMagic: its Source is the
// bytes after the magic, as if they were the plain bytes. It counts the
// calls to its Match and Open, and remembers the longest head it was given.
type fakeBackend struct {
	matches, opens atomic.Int64
	longest        atomic.Int64
	openErr        error
}

func (fb *fakeBackend) backend(name string) Backend {
	return Backend{
		Name: name,
		Match: func(head []byte) bool {
			fb.matches.Add(1)
			for n := int64(len(head)); ; {
				old := fb.longest.Load()
				if n <= old || fb.longest.CompareAndSwap(old, n) {
					break
				}
			}
			return bytes.HasPrefix(head, []byte(fakeMagic))
		},
		Open: func(path string) (Source, error) {
			fb.opens.Add(1)
			if fb.openErr != nil {
				return nil, fb.openErr
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			return &fakeSource{path: path, data: data[len(fakeMagic):]}, nil
		},
	}
}

// fakeSource is the fake backend's Source: bytes in memory.
type fakeSource struct {
	path string
	data []byte
}

func (s *fakeSource) Name() string { return s.path }
func (s *fakeSource) Size() int64  { return int64(len(s.data)) }
func (s *fakeSource) ReadAt(_ context.Context, p []byte, off int64) (int, error) {
	return bytes.NewReader(s.data).ReadAt(p, off)
}
func (s *fakeSource) Identity() Identity          { return Identity{Size: s.Size()} }
func (s *fakeSource) Current() (Identity, error)  { return s.Identity(), nil }
func (s *fakeSource) Splits(target int64) []int64 { return []int64{0} }
func (s *fakeSource) Close() error                { return nil }

// withBackends empties the registry for the test, and puts back what it
// held when the test ends: registrations do not leak from one test into
// another.
func withBackends(t *testing.T) {
	t.Helper()
	old := backends.Swap(nil)
	t.Cleanup(func() { backends.Store(old) })
}

// writeNamed writes data to a file of that name in a temporary directory.
func writeNamed(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRegister: Open gives a compressed file to the first backend that
// matches its first HeadLen bytes, and a plain file to no backend at all;
// compressed data no backend matches is a *CompressedError as without
// backends; Check accepts what a backend reads without opening it; a
// backend's Open error is Open's.
func TestRegister(t *testing.T) {
	withBackends(t)
	var fb, second fakeBackend
	Register(fb.backend("fake"))
	Register(second.backend("second")) // matches the same files: never asked, the first one does
	if got := Backends(); !slices.Equal(got, []string{"fake", "second"}) {
		t.Fatalf("Backends() = %v", got)
	}

	plain := writeNamed(t, "plain.csv", "k,v\n1,a\n")
	src, err := Open(plain, mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(*File); !ok {
		t.Errorf("Open(plain) = %T, want *File", src)
	}
	src.Close()
	if n := fb.matches.Load(); n != 0 {
		t.Errorf("a plain file was matched against the backends %d times", n)
	}

	plainBytes := "id,v\n" + strings.Repeat("1,abcdefgh\n", 20)
	fake := writeNamed(t, "data.bz2", fakeMagic+plainBytes)
	src, err = Open(fake, mapping.Random)
	if err != nil {
		t.Fatal(err)
	}
	fs, ok := src.(*fakeSource)
	if !ok || string(fs.data) != plainBytes || src.Name() != fake {
		t.Fatalf("Open(fake) = %T %v", src, src)
	}
	src.Close()
	if fb.opens.Load() != 1 || second.matches.Load() != 0 || second.opens.Load() != 0 {
		t.Errorf("opens %d, the second backend's matches %d and opens %d; want 1, 0, 0", fb.opens.Load(), second.matches.Load(), second.opens.Load())
	}
	if n := fb.longest.Load(); n != HeadLen {
		t.Errorf("Match saw %d bytes of a longer file, want HeadLen (%d)", n, HeadLen)
	}

	// A short file: Match sees all of it.
	short := writeNamed(t, "short.bz2", fakeMagic+"x\n")
	if src, err := Open(short, mapping.Random); err != nil || src.Size() != 2 {
		t.Fatalf("Open(a short fake file) = %v, %v", src, err)
	}

	// bzip2 data the backends do not read: a *CompressedError, as before.
	other := writeNamed(t, "other.bz2", "BZh91AY&SY\x00\x01\x02")
	var ce *CompressedError
	if src, err := Open(other, mapping.Random); !errors.As(err, &ce) || ce.Format != "bzip2" || src != nil {
		t.Errorf("Open(bzip2 no backend reads) = %v, %v; want a *CompressedError", src, err)
	}
	if err := Check(other); !errors.As(err, &ce) {
		t.Errorf("Check(bzip2 no backend reads) = %v; want a *CompressedError", err)
	}

	// Check: what a backend reads can have an index; the backend is not opened.
	opens := fb.opens.Load()
	if err := Check(fake); err != nil {
		t.Errorf("Check(fake) = %v", err)
	}
	if fb.opens.Load() != opens {
		t.Errorf("Check opened the backend")
	}

	// The backend's error is Open's, with no source.
	fb.openErr = errors.New("damaged")
	if src, err := Open(fake, mapping.Random); err != fb.openErr || src != nil {
		t.Errorf("Open(fake, failing) = %v, %v", src, err)
	}
}

// TestRegisterPanics: a backend without its parts, or a second of a name,
// is a programming error.
func TestRegisterPanics(t *testing.T) {
	withBackends(t)
	var fb fakeBackend
	Register(fb.backend("fake"))
	for name, b := range map[string]Backend{
		"no name":  {Match: fb.backend("").Match, Open: fb.backend("").Open},
		"no match": {Name: "x", Open: fb.backend("").Open},
		"no open":  {Name: "x", Match: fb.backend("").Match},
		"twice":    fb.backend("fake"),
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s) did not panic", name)
				}
			}()
			Register(b)
		}()
	}
	if got := Backends(); !slices.Equal(got, []string{"fake"}) {
		t.Errorf("Backends() = %v after the panics", got)
	}
}

// TestRegisterConcurrent: Open while backends register (go test -race
// checks the registry's synchronisation).
func TestRegisterConcurrent(t *testing.T) {
	withBackends(t)
	fake := writeNamed(t, "data.bz2", fakeMagic+"k\n1\n")
	var fb fakeBackend
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 50 {
				src, err := Open(fake, mapping.Random)
				var ce *CompressedError
				switch {
				case err == nil:
					src.Close()
				case !errors.As(err, &ce):
					t.Errorf("Open = %v", err)
				}
			}
		})
		if i == 1 {
			Register(fb.backend("fake"))
		}
	}
	wg.Wait()
	if src, err := Open(fake, mapping.Random); err != nil {
		t.Errorf("Open once registered = %v", err)
	} else {
		src.Close()
	}
}

// TestCompressedErrorBGZF: a gzip file whose header holds BGZF's 'BC'
// subfield says so; plain gzip, a header cut short, and a BSIZE too small
// for a member do not.
func TestCompressedErrorBGZF(t *testing.T) {
	withBackends(t)
	for _, c := range []struct {
		name, data string
		bgzf       bool
	}{
		{"BGZF", bgzfEOF + bgzfEOF, true},
		{"BGZFEndMarkerOnly", bgzfEOF, true},
		{"Gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x01\x00\x00\xff\xff", false},
		{"GzipName", "\x1f\x8b\x08\x08\x00\x00\x00\x00\x00\x03a.csv\x00", false},
		{"ExtraWithoutBC", "\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00XY\x02\x00\x1b\x00", false},
		{"ExtraCutShort", "\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC", false},
		{"BSIZETooSmall", "\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff\x06\x00BC\x02\x00\x05\x00", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ce *CompressedError
			_, err := Open(writeNamed(t, "a.gz", c.data), mapping.Random)
			if !errors.As(err, &ce) || ce.Format != "gzip" || ce.BGZF != c.bgzf {
				t.Errorf("Open = %v (%+v); want a gzip *CompressedError with BGZF %v", err, ce, c.bgzf)
			}
		})
	}
	var ce *CompressedError
	if _, err := Open(writeNamed(t, "a.zst", "\x28\xb5\x2f\xfd\x24\x0d"), mapping.Random); !errors.As(err, &ce) || ce.BGZF {
		t.Errorf("zstd: %+v", ce)
	}
}
