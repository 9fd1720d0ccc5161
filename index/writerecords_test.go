package index

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
	"github.com/csvidx/csvidx/scan/chunked"
	"github.com/csvidx/csvidx/sorter"
	"github.com/csvidx/csvidx/source"
)

// collect is a chunked.Sink of a sequential scan that keeps the records.
type collect struct{ recs []sorter.Record }

func (c *collect) Add(recs []sorter.Record) error {
	c.recs = append(c.recs, recs...)
	return nil
}
func (c *collect) AddGroup(*sorter.Group) error        { panic("a sequential scan adds no group") }
func (c *collect) NewDistributor() *sorter.Distributor { return nil }
func (c *collect) InputDone(int64, int64)              {}

// TestWriteRecords: an index written from the records of a scan, fed in
// file order in batches of any size, with that scan's totals, is the index a build
// writes, byte for byte after the header page; one written from the
// records of half the hashes answers those keys as the whole does and no
// other; records fed and totals that disagree are an error.
func TestWriteRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 91))
	ctx := context.Background()
	for round := range 6 {
		g := makeCSV(r, 3000, 1, ',', round%3 != 2, round%2 == 0)
		path := writeCSV(t, g.data)
		noHeader := g.header == ""
		want, _ := buildBytes(t, path, "1", noHeader, Resources{Threads: 1 + round%2})

		csv, err := openBuilt(path, mapping.Sequential, ',', source.WalkOptions{}, "")
		if err != nil {
			t.Fatal(err)
		}
		sp := spec{delim: ',', header: !noHeader, key: "1"}
		h, start, err := mainHeader(csv, &sp)
		if err != nil {
			t.Fatal(err)
		}
		var c collect
		s := chunked.Scan{Delim: ',', KeyCol: int(h.KeyCol), Plan: chunked.Plan{Threads: 1}}
		csv.input(&s)
		res, err := s.Run(ctx, start, &c)
		csv.close()
		if err != nil {
			t.Fatal(err)
		}
		totals := Totals{Rows: res.Rows, ShortRows: res.Short[0], Blanks: res.Blanks, Resume: res.Resume}
		write := func(recs []sorter.Record, totals Totals) ([]byte, error) {
			src, err := source.Open(path, mapping.Random)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir() + "/w.csvidx"
			_, err = WriteRecords(ctx, src, totals, func(add func([]sorter.Record) error) error {
				for len(recs) > 0 {
					n := min(len(recs), 1+r.IntN(500))
					if err := add(recs[:n]); err != nil {
						return err
					}
					recs = recs[n:]
				}
				return nil
			}, &BuildOptions{Key: "1", NoHeader: noHeader, IndexPath: out})
			if err != nil {
				return nil, err
			}
			return os.ReadFile(out)
		}
		got, err := write(c.recs, totals)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[format.PageSize:], want[format.PageSize:]) {
			t.Fatalf("round %d: the index written from the scan's records differs from the build's", round)
		}

		// Half the hashes: a partition.
		var half []sorter.Record
		for _, rec := range c.recs {
			if rec.Hash%2 == 0 {
				half = append(half, rec)
			}
		}
		partTotals := Totals{Rows: uint64(len(half)), Resume: totals.Resume}
		out := t.TempDir() + "/half.csvidx"
		src, _ := source.Open(path, mapping.Random)
		if _, err := WriteRecords(ctx, src, partTotals, func(add func([]sorter.Record) error) error { return add(half) }, &BuildOptions{Key: "1", NoHeader: noHeader, IndexPath: out}); err != nil {
			t.Fatal(err)
		}
		if _, err := Build(ctx, path, &BuildOptions{Key: "1", NoHeader: noHeader}); err != nil {
			t.Fatal(err)
		}
		whole, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		part, err := Open(path, &Options{IndexPath: out})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range g.rows[:min(len(g.rows), 200)] {
			if !row.hasKey {
				continue
			}
			key := []byte(row.key)
			var a, b strings.Builder
			whole.Get([][]byte{key}, func(r []byte) error { a.Write(r); return nil })
			part.Get([][]byte{key}, func(r []byte) error { b.Write(r); return nil })
			inPart := keyHash()(key)%2 == 0
			if inPart && a.String() != b.String() || !inPart && b.Len() > 0 {
				t.Fatalf("key %q (in the partition: %v): %q, the whole index %q", row.key, inPart, b.String(), a.String())
			}
		}
		part.Close()
		whole.Close()

		if _, err := write(c.recs[1:], totals); err == nil || !strings.Contains(err.Error(), "records fed") {
			t.Errorf("a record short of the totals: %v", err)
		}
	}
}
