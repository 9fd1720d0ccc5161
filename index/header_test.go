package index

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
)

// validDense returns a format 2 main index header that decodes.
func validDense() *header {
	return &header{version: versionDense, fpBits: 32, offBits: 10, delim: ',', keyCol: 1,
		resume: 500, scanned: 500, records: 20, rows: 20, pages: 1, keyName: []byte("user")}
}

func decodeOf(t *testing.T, h *header) (*header, error) {
	t.Helper()
	page := make([]byte, pageSize)
	h.encode(page)
	return decodeHeader(page)
}

// TestHeaderChecksEveryFormat holds a format 2 header to the checks that
// do not depend on the format, which once stopped at its own.
func TestHeaderChecksEveryFormat(t *testing.T) {
	if _, err := decodeOf(t, validDense()); err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(h *header){
		"more records than rows": func(h *header) { h.rows = 19 },
		"resume past scanned":    func(h *header) { h.resume = 501 },
		"header record outside":  func(h *header) { h.headerEnd = 600 },
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
	h.flags |= flagComposite
	h.keyCols = []uint32{1, 4, 0}
	got, err := decodeOf(t, h)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.keyColumns(), []int{1, 4, 0}) {
		t.Fatalf("columns %v, want [1 4 0]", got.keyColumns())
	}
	if one := validDense(); !slices.Equal(one.keyColumns(), []int{1}) {
		t.Fatalf("one column: %v", one.keyColumns())
	}
	for name, cols := range map[string][]uint32{
		"one column":          {1},
		"a column twice":      {1, 4, 1},
		"first is not keyCol": {2, 1},
		"too many":            make([]uint32, 65),
	} {
		h := validDense()
		h.flags |= flagComposite
		h.keyCols = cols
		if _, err := decodeOf(t, h); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// columns without the flag are reserved bytes that are not zero
	page := make([]byte, pageSize)
	h = validDense()
	h.flags |= flagComposite
	h.keyCols = []uint32{1, 2}
	h.encode(page)
	page[12] &^= flagComposite
	crcpage.Seal(page)
	if _, err := decodeHeader(page); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("columns without the flag: %v", err)
	}
}
