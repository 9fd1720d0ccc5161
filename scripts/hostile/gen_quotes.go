package main

import "bytes"

// writeUnterminated writes case 1: a header, five rows, then a row whose
// key field opens a quote that never closes, then normal-looking rows up
// to size. By the SPEC the quoted field runs to the end of the file, so the
// file has six records and the last is unterminated. Every tenth row after
// the quote has an empty quoted field "": inside the open field that is an
// escaped quote, so the key of row 6 needs unescaping.
func writeUnterminated(g *gen, size int64) {
	g.raw([]byte("id,key,val\n"))
	var b []byte
	for i := int64(1); i <= 5; i++ {
		key := "k" + num(i)
		g.rec([]byte(key), row(b[:0], num(i), ",", key, ",v\n"))
	}
	g.open(nil, []byte("6,\"never closed,v\n"))
	g.unterm = true
	for i := int64(7); ; i++ {
		val := "value-of-a-normal-looking-row"
		if i%10 == 0 {
			val = `""`
		}
		b = row(b[:0], num(i), ",k", num(i), ",", val, "\n")
		if !g.room(len(b), size) {
			return
		}
		g.raw(b)
	}
}

// giantUnit is the repeated content of a giant quoted field: commas,
// newlines, \r\n, a lone \r, "" escapes and lines that look like rows with
// the key kfake, which is no record's key.
const giantUnit = "9,kfake,\"\"q\"\"\n,a,b\r\n,,\rz\n"

// giantContent writes n bytes of quoted-field content.
func giantContent(g *gen, n int64) {
	block := bytes.Repeat([]byte(giantUnit), (64<<10)/len(giantUnit))
	for n >= int64(len(block)) {
		g.raw(block)
		n -= int64(len(block))
	}
	for n >= int64(len(giantUnit)) {
		g.raw([]byte(giantUnit))
		n -= int64(len(giantUnit))
	}
	g.raw(bytes.Repeat([]byte("x"), int(n)))
}

// writeGiantField writes case 2a: one quoted field of about size bytes in
// the third column of row 1, then two normal rows.
func writeGiantField(g *gen, size int64) {
	g.raw([]byte("id,key,val\n"))
	g.open([]byte("k1"), []byte("1,k1,\""))
	giantContent(g, size-g.n-32)
	g.raw([]byte("\"\n"))
	g.rec([]byte("k2"), []byte("2,k2,v\n"))
	g.rec([]byte("k3"), []byte("3,k3,v\n"))
}

// writeGiantKey writes case 2b: as 2a, but the giant field is the key.
func writeGiantKey(g *gen, size int64) {
	g.raw([]byte("id,key,val\n"))
	g.open(nil, []byte("1,\""))
	giantContent(g, size-g.n-32)
	g.raw([]byte("\",v\n"))
	g.rec([]byte("k2"), []byte("2,k2,v\n"))
	g.rec([]byte("k3"), []byte("3,k3,v\n"))
}

// writeQuotedNewlines writes case 3: every row's third field is quoted and
// holds eight lines that look like rows (key f<j>, with "" escapes), so
// eight newlines in nine are inside quotes and a chunk boundary's guess is
// wrong almost everywhere: read as inside quotes or outside, the bytes after
// it look like records of the usual width either way.
func writeQuotedNewlines(g *gen, size int64) {
	g.raw([]byte("id,key,note\n"))
	var b []byte
	for i := int64(0); ; i++ {
		key := "u" + num(i%1000)
		b = row(b[:0], num(i), ",", key, ",\"")
		for j := int64(0); j < 8; j++ {
			b = row(b, num(i*8+j), ",f", num(j), ",\"\"x\"\"\n")
		}
		b = append(b, "\"\n"...)
		if !g.room(len(b), size) {
			return
		}
		g.rec([]byte(key), b)
	}
}
