package format

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
)

// validDense returns a format 2 main index header that decodes.
func validDense() *Header {
	return &Header{Version: VersionDense, FPBits: 32, OffBits: 10, Delim: ',', KeyCol: 1,
		Resume: 500, Scanned: 500, Records: 20, Rows: 20, Pages: 1, KeyName: []byte("user")}
}

func decodeOf(t *testing.T, h *Header) (*Header, error) {
	t.Helper()
	page := make([]byte, PageSize)
	h.Encode(page)
	return DecodeHeader(page)
}

// TestHeaderChecksEveryFormat holds a format 2 header to the checks that
// do not depend on the format, which once stopped at its own.
func TestHeaderChecksEveryFormat(t *testing.T) {
	if _, err := decodeOf(t, validDense()); err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(h *Header){
		"more records than rows": func(h *Header) { h.Rows = 19 },
		"resume past scanned":    func(h *Header) { h.Resume = 501 },
		"header record outside":  func(h *Header) { h.HeaderEnd = 600 },
	} {
		h := validDense()
		spoil(h)
		if _, err := decodeOf(t, h); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

func TestHeaderCompositeKey(t *testing.T) {
	h := validDense()
	h.Flags |= FlagComposite
	h.KeyCols = []uint32{1, 4, 0}
	got, err := decodeOf(t, h)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.KeyColumns(), []int{1, 4, 0}) {
		t.Fatalf("columns %v, want [1 4 0]", got.KeyColumns())
	}
	if one := validDense(); !slices.Equal(one.KeyColumns(), []int{1}) {
		t.Fatalf("one column: %v", one.KeyColumns())
	}
	for name, cols := range map[string][]uint32{
		"one column":          {1},
		"a column twice":      {1, 4, 1},
		"first is not keyCol": {2, 1},
		"too many":            make([]uint32, 65),
	} {
		h := validDense()
		h.Flags |= FlagComposite
		h.KeyCols = cols
		if _, err := decodeOf(t, h); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// columns without the flag are reserved bytes that are not zero
	page := make([]byte, PageSize)
	h = validDense()
	h.Flags |= FlagComposite
	h.KeyCols = []uint32{1, 2}
	h.Encode(page)
	page[12] &^= FlagComposite
	crcpage.Seal(page)
	if _, err := DecodeHeader(page); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("columns without the flag: %v", err)
	}
}
