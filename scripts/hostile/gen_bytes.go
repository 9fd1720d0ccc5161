package main

// alphabet holds the one-byte keys of case 4.
const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// tinyRecords is how many records case 4 writes: 10^8 at 1 GiB, in
// proportion below and above.
func tinyRecords(size int64) int64 {
	return max(1000, int64(float64(size)/(1<<30)*1e8))
}

// writeTiny writes case 4: records as small as records get, one key byte
// and a newline ("a\n"), with no header, tinyRecords(size) of them.
func writeTiny(g *gen, size int64) {
	n := tinyRecords(size)
	var rec [2]byte
	rec[1] = '\n'
	for i := int64(0); i < n; i++ {
		rec[0] = alphabet[i%int64(len(alphabet))]
		g.rec(rec[:1], rec[:])
	}
}

// writeNUL writes case 5: NUL bytes in the header, in keys (plain and
// quoted, a key that is one NUL, a key that starts and ends with NULs) and
// in the other fields.
func writeNUL(g *gen, size int64) {
	g.raw([]byte("id,key,v\x00al\n"))
	var b []byte
	for i := int64(0); ; i++ {
		var key string
		switch {
		case i == 1000:
			key = "\x00\x00unique\x00"
			b = row(b[:0], num(i), ",", key, ",\x00\n")
		case i%50 == 0:
			key = "\x00"
			b = row(b[:0], num(i), ",\x00,v\x00\n")
		case i%5 == 0:
			key = "\x00q" + num(i%100) + "\""
			b = row(b[:0], num(i), ",\"", "\x00q", num(i%100), "\"\"\",\x00\x00\n")
		default:
			key = "\x00k" + num(i%1000)
			b = row(b[:0], num(i), ",", key, ",va\x00l\n")
		}
		if !g.room(len(b), size) {
			return
		}
		g.rec([]byte(key), b)
	}
}

// writeInvalidUTF8 writes case 6: a UTF-8 byte order mark, then keys and
// fields that are not UTF-8: a stray 0xff, a truncated sequence, an
// encoded surrogate (quoted), an overlong encoding, and continuation bytes
// with no lead byte.
func writeInvalidUTF8(g *gen, size int64) {
	g.raw([]byte("\xef\xbb\xbfid,key,val\n"))
	var b []byte
	for i := int64(0); ; i++ {
		var key string
		switch {
		case i == 1000:
			key = "\x80\x81unique"
			b = row(b[:0], num(i), ",", key, ",\xfe\xfe\n")
		case i%7 == 0:
			key = "\xc3("
			b = row(b[:0], num(i), ",", key, ",\xc3\n")
		case i%11 == 0:
			key = "\xed\xa0\x80" + num(i%10)
			b = row(b[:0], num(i), ",\"", key, "\",\"\xed\xbf\xbf\"\n")
		case i%13 == 0:
			key = "\xc0\xaf"
			b = row(b[:0], num(i), ",", key, ",\xf8\x88\x80\x80\x80\n")
		default:
			key = "\xff" + num(i%1000)
			b = row(b[:0], num(i), ",", key, ",v\xff\n")
		}
		if !g.room(len(b), size) {
			return
		}
		g.rec([]byte(key), b)
	}
}
