package main

import (
	"bufio"
	"os"
)

// maxOut is the most bytes of rows kept per probe key to compare with what
// csvidx get prints; a key with more is checked by its count only.
const maxOut = 64 << 10

// gen writes one CSV file and, as it writes, counts the rows of the keys a
// case will look up: the expectations come from the generator, never from
// csvidx.
type gen struct {
	f       *os.File
	w       *bufio.Writer
	n       int64 // bytes written
	rows    int64 // records written after the header
	records int64 // of which with a key column
	unterm  bool  // the last record has no terminator
	keys    []string
	counts  map[string]int64  // probe key -> rows with that key
	out     map[string][]byte // probe key -> its rows in file order, what get prints
	noOut   map[string]bool   // probe keys whose rows are too long to keep
}

func newGen(path string, probes []string) (*gen, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	g := &gen{f: f, w: bufio.NewWriterSize(f, 1<<20), keys: probes,
		counts: map[string]int64{}, out: map[string][]byte{}, noOut: map[string]bool{}}
	for _, k := range probes {
		g.counts[k] = 0
	}
	return g, nil
}

// raw writes bytes that start no record: the header, or the rest of a
// record begun with open.
func (g *gen) raw(b []byte) {
	g.w.Write(b)
	g.n += int64(len(b))
}

// rec writes one whole record, terminator included, whose decoded key is key.
func (g *gen) rec(key, row []byte) {
	g.raw(row)
	g.rows++
	g.records++
	if _, ok := g.counts[string(key)]; !ok {
		return
	}
	k := string(key)
	g.counts[k]++
	if g.noOut[k] {
		return
	}
	if len(g.out[k])+len(row) > maxOut {
		g.noOut[k], g.out[k] = true, nil
		return
	}
	g.out[k] = append(g.out[k], row...)
}

// open starts a record whose bytes go on with raw. key is its decoded key,
// or nil when no probe can match it (a giant key); its rows are not kept.
func (g *gen) open(key, head []byte) {
	g.raw(head)
	g.rows++
	g.records++
	if key == nil {
		return
	}
	if _, ok := g.counts[string(key)]; ok {
		g.counts[string(key)]++
		g.noOut[string(key)], g.out[string(key)] = true, nil
	}
}

// room reports whether n more bytes keep the file within size.
func (g *gen) room(n int, size int64) bool { return g.n+int64(n) <= size }

func (g *gen) close() error {
	err := g.w.Flush()
	if cerr := g.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// expect is what csvidx must report for a generated file.
type expect struct {
	Rows         int64             `json:"rows"`    // data records
	Records      int64             `json:"records"` // rows with a key
	Unterminated bool              `json:"unterminated"`
	Keys         []string          `json:"-"` // probe keys, in order
	Counts       map[string]int64  `json:"-"` // rows per probe key
	Out          map[string][]byte `json:"-"` // get's output per probe key, when kept
}

func (g *gen) expect() expect {
	out := map[string][]byte{}
	for _, k := range g.keys {
		if !g.noOut[k] {
			out[k] = g.out[k]
		}
	}
	return expect{Rows: g.rows, Records: g.records, Unterminated: g.unterm, Keys: g.keys, Counts: g.counts, Out: out}
}
