package main

import "strings"

// writePlain writes the reference file: rows "i,u<i%100000>,x...x" of 56
// bytes or so, like the orders CSV of the benchmarks, up to size bytes.
func writePlain(g *gen, size int64) {
	g.raw([]byte("id,user,pad\n"))
	pad := strings.Repeat("x", 40)
	var b []byte
	for i := int64(0); ; i++ {
		key := "u" + num(i%100000)
		b = row(b[:0], num(i), ",", key, ",", pad, "\n")
		if !g.room(len(b), size) {
			return
		}
		g.rec([]byte(key), b)
	}
}
