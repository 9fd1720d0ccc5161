package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
)

// keyedCSV is a CSV of rows "ID,KEY,PAD\n" with a header, indexed on
// "key": its rows' offsets and keys.
type keyedCSV struct {
	path string
	data []byte
	offs []int    // where each row starts
	keys []string // each row's key
}

// writeKeyedCSV writes a CSV of n rows whose keys ("k" and a number below
// n/4) repeat, and whose pads are 1 to 8 bytes long, so that rows differ
// in length, and builds its index.
func writeKeyedCSV(t *testing.T, n int) *keyedCSV {
	t.Helper()
	r := rand.New(rand.NewPCG(38, 13))
	c := &keyedCSV{data: []byte("id,key,pad\n")}
	for i := range n {
		key := "k" + strconv.Itoa(r.IntN(n/4))
		c.offs, c.keys = append(c.offs, len(c.data)), append(c.keys, key)
		c.data = fmt.Appendf(c.data, "%d,%s,%s\n", i, key, strings.Repeat("p", 1+r.IntN(8)))
	}
	c.path = writeCSV(t, string(c.data))
	build(t, c.path, &BuildOptions{Key: "key"})
	return c
}

// rowLen returns the length of row i with its terminator.
func (c *keyedCSV) rowLen(i int) int {
	if i+1 < len(c.offs) {
		return c.offs[i+1] - c.offs[i]
	}
	return len(c.data) - c.offs[i]
}

// rewrite writes b over the CSV's bytes from off, in place.
func (c *keyedCSV) rewrite(t *testing.T, off int, b []byte) {
	t.Helper()
	for i, x := range b {
		editAt(t, c.path, int64(off+i), x)
	}
	copy(c.data[off:], b)
}

// rowFinding is what verify says about the row at byte off of the CSV at
// csvPath, which the index has under a hash that sorts before the hash a
// fresh build has it under (indexFirst) or after.
func rowFinding(csvPath string, off int, indexFirst bool) string {
	if indexFirst {
		return fmt.Sprintf("the row at byte %d of %s is not the one the index has there: the CSV changed there or near it since the build", off, csvPath)
	}
	return fmt.Sprintf("the row at byte %d of %s is not indexed under its key: the CSV changed there or near it since the build", off, csvPath)
}

// wantFinding verifies the index of the CSV at csvPath and fails unless
// one of its differences, for the main index, starts with want.
func wantFinding(t *testing.T, csvPath, want string) {
	t.Helper()
	res, err := Verify(context.Background(), csvPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Base(DefaultIndexPath(csvPath)) + ": " + want
	for _, d := range res.Differences {
		if strings.HasPrefix(d, prefix) {
			return
		}
	}
	t.Fatalf("Verify found\n\t%s\nwant a finding that starts with\n\t%s", strings.Join(res.Differences, "\n\t"), prefix)
}

// hashBefore reports whether key a's hash sorts before b's in the index,
// failing when their fingerprints are equal (an index of format 2 could
// not tell the keys apart).
func hashBefore(t *testing.T, a, b string) bool {
	t.Helper()
	ha, hb := keyHash()([]byte(a)), keyHash()([]byte(b))
	if ha>>(64-format.MinFPBits) == hb>>(64-format.MinFPBits) {
		t.Fatalf("keys %q and %q share a fingerprint: pick others", a, b)
	}
	return ha < hb
}

// TestVerifyNamesTheRow: when the CSV was edited in place, verify decodes
// the first differing record page of the index and of a fresh build, in
// the index's format, and names the row at the first record where they
// part, by its byte in the CSV.
func TestVerifyNamesTheRow(t *testing.T) {
	for _, fm := range []struct {
		name string
		flat bool
	}{{"Format2", false}, {"Format1", true}} {
		t.Run(fm.name+"/KeyChanged", func(t *testing.T) {
			if fm.flat {
				useFlat(t)
			}
			c := writeKeyedCSV(t, 12000)
			i := len(c.offs) / 2
			old := c.keys[i]
			key := old[:len(old)-1] + string('0'+(old[len(old)-1]-'0'+1)%10) // same length, another key
			c.rewrite(t, c.offs[i]+strings.IndexByte(string(c.data[c.offs[i]:]), ',')+1, []byte(key))
			wantFinding(t, c.path, rowFinding(c.path, c.offs[i], hashBefore(t, old, key)))
		})
	}

	t.Run("Format2/RowsSwapped", func(t *testing.T) {
		// Two rows of different lengths trade places: the total size stays,
		// and the first of them starts where it did, but under the other's
		// key, which sorts first wherever it is.
		c := writeKeyedCSV(t, 12000)
		i := len(c.offs) / 2
		for c.rowLen(i) == c.rowLen(i+1) || c.keys[i] == c.keys[i+1] {
			i++
		}
		a, b := c.offs[i], c.offs[i+1]
		end := b + c.rowLen(i+1)
		swapped := append([]byte(string(c.data[b:end])), c.data[a:b]...)
		c.rewrite(t, a, swapped)
		wantFinding(t, c.path, rowFinding(c.path, a, hashBefore(t, c.keys[i], c.keys[i+1])))
	})

	t.Run("Format2/CorruptPage", func(t *testing.T) {
		c := writeKeyedCSV(t, 12000)
		idx := DefaultIndexPath(c.path)
		b, err := os.ReadFile(idx)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 5*format.PageSize {
			t.Fatalf("the index has %d record pages, want 4 or more", len(b)/format.PageSize-1)
		}
		editAt(t, idx, 3*format.PageSize+100, ^b[3*format.PageSize+100]) // record page 2
		wantFinding(t, c.path, fmt.Sprintf("record page 2 (bytes %d to %d) is corrupt: checksum mismatch", 3*format.PageSize, 4*format.PageSize))
	})
}

// TestVerifyEnds: the CSV edited in place so that a fresh build has one
// record more, at the end of the index order, on a record page of its own,
// the index's pages being the fresh build's but that last one; and the
// other way round.
func TestVerifyEnds(t *testing.T) {
	// Keys are numbers, in the index order (useHash), so the changed row
	// has the last record; the pages before are the same.
	useHash(t, func(k []byte) uint64 {
		n, _ := strconv.ParseUint(string(k), 10, 64)
		return n << 40
	})
	const (
		short = "xxxxxxxx\n" // a row without the key column
		keyed = "x,999999\n" // the same row of the same length with the largest key
	)
	csvOf := func(n int, last string) string {
		var b strings.Builder
		b.WriteString("id,key\n")
		for i := range n {
			fmt.Fprintf(&b, "x,%06d\n", i)
		}
		return b.String() + last
	}
	pagesOf := func(t *testing.T, p string) int64 {
		st, err := os.Stat(DefaultIndexPath(p))
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()/format.PageSize - 1
	}
	for _, fm := range []struct {
		name string
		flat bool
	}{{"Format2", false}, {"Format1", true}} {
		t.Run(fm.name, func(t *testing.T) {
			if fm.flat {
				useFlat(t)
			}
			// The most rows whose index with the keyed last row has one
			// record page: format 1 holds 255 records a page; format 2's
			// count is searched for.
			n := format.RecordsPerPage - 1
			if !fm.flat {
				lo, hi := 1, 4000 // one page at lo rows, two at hi
				for lo+1 < hi {
					mid := (lo + hi) / 2
					p := writeCSV(t, csvOf(mid, keyed))
					build(t, p, &BuildOptions{Key: "key"})
					if pagesOf(t, p) == 1 {
						lo = mid
					} else {
						hi = mid
					}
				}
				n = hi // the keyed row's record starts a second page
			} else {
				n++
			}
			lastRow := len(csvOf(n, ""))
			t.Run("IndexEndsFirst", func(t *testing.T) {
				p := writeCSV(t, csvOf(n, short))
				build(t, p, &BuildOptions{Key: "key"})
				if err := os.WriteFile(p, []byte(csvOf(n, keyed)), 0o644); err != nil {
					t.Fatal(err)
				}
				if pagesOf(t, p) != 1 {
					t.Fatalf("the index has %d record pages, want 1", pagesOf(t, p))
				}
				wantFinding(t, p, rowFinding(p, lastRow, false)+" (the index ends before record page 1 of a fresh build)")
			})
			t.Run("FreshBuildEndsFirst", func(t *testing.T) {
				p := writeCSV(t, csvOf(n, keyed))
				build(t, p, &BuildOptions{Key: "key"})
				if err := os.WriteFile(p, []byte(csvOf(n, short)), 0o644); err != nil {
					t.Fatal(err)
				}
				if pagesOf(t, p) != 2 {
					t.Fatalf("the index has %d record pages, want 2", pagesOf(t, p))
				}
				wantFinding(t, p, rowFinding(p, lastRow, true)+" (a fresh build ends before record page 1)")
			})
		})
	}
}
