package main

import "bytes"

// columns is how many fields a wide row of case 7 has.
const columns = 1_000_000

// wideRows is how many wide rows case 7 writes: one, and one more per
// 256 MiB of file.
func wideRows(size int64) int64 { return 1 + size/(256<<20) }

// wideRow returns a row of a million fields. Even rows have the key WIDE,
// one-byte fields and a quoted field with a comma and an escape every
// thousand columns; odd rows are a million empty fields (key "").
func wideRow(j int64) (key, b []byte) {
	if j%2 == 1 {
		return []byte{}, append(bytes.Repeat([]byte(","), columns-1), '\n')
	}
	b = append(b, "w,WIDE"...)
	for c := 2; c < columns; c++ {
		if c%1000 == 0 {
			b = append(b, `,"q,""q"`...)
		} else {
			b = append(b, ",x"...)
		}
	}
	return []byte("WIDE"), append(b, '\n')
}

// writeWide writes case 7: ordinary rows with wideRows(size) rows of a
// million columns spread evenly among them (fewer when they do not fit);
// the key is column 1.
func writeWide(g *gen, size int64) {
	g.raw([]byte("id,key,val\n"))
	n := wideRows(size)
	for n > 0 && n*2*columns > size {
		n--
	}
	every := (size - n*2*columns) / (n + 1) // ordinary bytes before each wide row
	var b []byte
	next := g.n + every
	for i, j := int64(0), int64(0); ; i++ {
		if j < n && g.n >= next {
			key, w := wideRow(j)
			g.rec(key, w)
			next = g.n + every
			j++
		}
		key := "u" + num(i%1000)
		b = row(b[:0], num(i), ",", key, ",an-ordinary-row\n")
		if !g.room(len(b), size) {
			return
		}
		g.rec([]byte(key), b)
	}
}
