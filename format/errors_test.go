package format

import (
	"errors"
	"fmt"
	"testing"

	"github.com/csvidx/csvidx/internal/crcpage"
)

// TestHeaderErrors: DecodeHeader tells another kind of file (ErrNotIndex),
// another format version (ErrVersion) and a damaged header (ErrCorrupt)
// apart, each error one of the three only, checking the magic, then the
// version, then the checksum.
func TestHeaderErrors(t *testing.T) {
	valid := func(version uint32) []byte {
		h := validDense()
		if version == VersionFlat {
			h = &Header{Delim: ',', Scanned: 500, Resume: 500, Rows: 20, Records: 20, Pages: recordPages(20)}
		}
		page := make([]byte, PageSize)
		h.Encode(page)
		return page
	}
	for _, c := range []struct {
		name string
		page func() []byte
		want error // nil for a header that decodes
	}{
		{"format 1", func() []byte { return valid(VersionFlat) }, nil},
		{"format 2", func() []byte { return valid(VersionDense) }, nil},
		{"a fence", func() []byte {
			p := valid(VersionDense)
			crcpage.Stamp(p, "\x89csvfnc\n", 2)
			crcpage.Seal(p)
			return p
		}, ErrNotIndex},
		{"a CSV", func() []byte { return append([]byte("id,user\n1,u1\n"), make([]byte, PageSize)...) }, ErrNotIndex},
		{"another magic, its checksum wrong", func() []byte { p := valid(VersionFlat); p[0] = 'x'; return p }, ErrNotIndex},
		{"version 3", func() []byte { p := valid(VersionDense); crcpage.Stamp(p, Magic, 3); crcpage.Seal(p); return p }, ErrVersion},
		{"version 0", func() []byte { p := valid(VersionFlat); crcpage.Stamp(p, Magic, 0); crcpage.Seal(p); return p }, ErrVersion},
		{"version 3, its checksum wrong", func() []byte { p := valid(VersionDense); crcpage.Stamp(p, Magic, 3); return p }, ErrVersion},
		{"format 1, its checksum wrong", func() []byte { p := valid(VersionFlat); p[100] ^= 1; return p }, ErrCorrupt},
		{"format 2, its checksum wrong", func() []byte { p := valid(VersionDense); p[CRCOffset] ^= 1; return p }, ErrCorrupt},
		{"shorter than a page", func() []byte { return valid(VersionFlat)[:PageSize-1] }, ErrCorrupt},
		{"format 1 with F and W", func() []byte { p := valid(VersionFlat); p[18] = 32; crcpage.Seal(p); return p }, ErrCorrupt},
	} {
		_, err := DecodeHeader(c.page())
		for _, sentinel := range []error{ErrNotIndex, ErrVersion, ErrCorrupt} {
			if errors.Is(err, sentinel) != (sentinel == c.want) {
				t.Errorf("%s: %v; want %v", c.name, err, c.want)
			}
		}
		if c.want == nil && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestPageError: a PageError says ErrCorrupt and its message, unwraps to
// ErrCorrupt only, and is found, with its Reader, through wrapping.
func TestPageError(t *testing.T) {
	rd := NewReader(nil, &Header{}, nil)
	pe := &PageError{Reader: rd, Msg: "record page 3 has a bad trailer"}
	if got, want := pe.Error(), "corrupt: record page 3 has a bad trailer"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := fmt.Errorf("lookup: %w", pe)
	var got *PageError
	switch {
	case !errors.Is(wrapped, ErrCorrupt) || errors.Is(wrapped, ErrNotIndex) || errors.Is(wrapped, ErrVersion):
		t.Errorf("%v is not ErrCorrupt alone", wrapped)
	case !errors.As(wrapped, &got) || got != pe || got.Reader != rd:
		t.Errorf("errors.As found %v, not the PageError", got)
	}
}
