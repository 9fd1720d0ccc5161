package main

// Rows are made in chunks of chunkRows. Chunk i draws from its own PCG stream seeded from
// (seed, i), so the bytes of a chunk do not depend on how many goroutines run or in which
// order they finish. Every row takes the same seven draws whatever the options, so -crlf,
// -bom, -unterminated and -multiline change only what they say: the terminators, the first
// bytes, the last bytes and the comments of some rows.

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

const (
	chunkRows  = 1 << 16 // rows per chunk: a few MiB of CSV, the unit of parallel work
	sampleIDs  = 5       // heavy and ordinary ids each chunk remembers for -stats
	firstTS    = 1704067200
	secsPerDay = 24 * 60 * 60
)

// header is the first record (without its terminator).
const header = "order_id,user_id,ts,amount,status,comment"

// statuses are weighted by repetition: delivered 40%, shipped 20%, paid 15%, pending 15%,
// cancelled 10%.
var statuses = [20]string{
	"delivered", "delivered", "delivered", "delivered", "delivered", "delivered", "delivered", "delivered",
	"shipped", "shipped", "shipped", "shipped",
	"paid", "paid", "paid",
	"pending", "pending", "pending",
	"cancelled", "cancelled",
}

// words are comments that need no quotes.
var words = []string{"gift", "urgent", "repeat", "thanks", "weekend", "fragile", "late", "ok"}

// quotedValues are decoded comments that contain a comma or a quote, so QUOTE_MINIMAL quotes them.
var quotedValues = []string{
	`gift, wrap "fragile"`,
	"call first, then ring",
	`size "L"`,
	`"asap"`,
	"red, green, blue",
	`he said "hi, there"`,
}

// multilineValues are decoded comments with line breaks; "\n" becomes the record terminator.
// The empty line and the break at either end are there on purpose: they trip naive splitters.
var multilineValues = []string{
	"line one\nline two",
	"deliver after 6pm,\nuse the \"back\" door",
	"first\n\nthird",
	"\nstarts with a break",
	"ends with a break\n",
}

// quoteField encodes s as one quoted CSV field: "..." with each " doubled.
func quoteField(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// comments holds the encoded comment fields for one terminator.
type comments struct {
	quoted    []string
	multiline []string
}

func newComments(terminator string) comments {
	var c comments
	for _, v := range quotedValues {
		c.quoted = append(c.quoted, quoteField(v))
	}
	for _, v := range multilineValues {
		c.multiline = append(c.multiline, quoteField(strings.ReplaceAll(v, "\n", terminator)))
	}
	return c
}

// chunk is one unit of output: the bytes of up to chunkRows rows and what -stats needs.
type chunk struct {
	buf            []byte
	heavyRows      int64
	heavySample    []uint64 // first distinct heavy ids in row order, at most sampleIDs
	ordinarySample []uint64 // first distinct ordinary ids in row order, at most sampleIDs
}

// rowGen writes rows; one per goroutine.
type rowGen struct {
	l        *layout
	comments comments
	rng      rand.PCG
	seen     []uint64 // bit per ordinary id that occurred; nil unless l.trackKeys
	day      int64    // day number whose "YYYY-MM-DDT" is in dayText
	dayText  []byte
}

func newRowGen(l *layout) *rowGen {
	g := &rowGen{l: l, comments: newComments(l.terminator), day: -1}
	if l.trackKeys {
		g.seen = make([]uint64, (l.ordinaryCount+63)/64)
	}
	return g
}

// splitmix64 scrambles x; it turns (seed, chunk) pairs into unrelated PCG seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// streamSeed seeds the PCG stream number i of seed.
func streamSeed(r *rand.PCG, seed, i uint64) {
	r.Seed(splitmix64(seed), splitmix64(splitmix64(seed)^splitmix64(i)))
}

// below returns a draw in [0, n).
func (g *rowGen) below(n uint64) uint64 {
	hi, _ := bits.Mul64(g.rng.Uint64(), n)
	return hi
}

// fill resets c and writes into it the rows of chunk i (0-based), n of them.
func (g *rowGen) fill(c *chunk, i uint64, n int) {
	streamSeed(&g.rng, g.l.seed, i)
	c.buf = c.buf[:0]
	c.heavyRows = 0
	c.heavySample = c.heavySample[:0]
	c.ordinarySample = c.ordinarySample[:0]
	first := int64(i) * chunkRows
	for id := first + 1; id <= first+int64(n); id++ {
		c.buf = g.appendRow(c, id)
	}
}

// appendRow appends row id (its order_id) with its terminator to c.buf.
func (g *rowGen) appendRow(c *chunk, id int64) []byte {
	l := g.l
	heavy := g.rng.Uint64()>>11 < l.heavyCut
	var user uint64
	if heavy {
		user = 1 + g.below(uint64(l.heavyUsers))
		c.heavyRows++
		c.heavySample = addSample(c.heavySample, user)
	} else {
		user = l.ordinaryFirst + g.below(l.ordinaryCount)
		c.ordinarySample = addSample(c.ordinarySample, user)
		if g.seen != nil {
			k := user - l.ordinaryFirst
			g.seen[k/64] |= 1 << (k % 64)
		}
	}
	cents := 100 + g.below(99900) // 1.00 .. 999.99
	status := statuses[g.below(uint64(len(statuses)))]
	multiline := g.rng.Uint64()>>11 < l.multilineCut
	kind := g.below(100)
	pick := g.rng.Uint64()

	b := strconv.AppendInt(c.buf, id, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, user, 10)
	b = append(b, ',')
	if l.unixTS {
		b = strconv.AppendInt(b, firstTS+id-1, 10)
	} else {
		b = g.appendTS(b, firstTS+id-1)
	}
	b = append(b, ',')
	b = strconv.AppendUint(b, cents/100, 10)
	b = append(b, '.', byte('0'+cents/10%10), byte('0'+cents%10), ',')
	b = append(b, status...)
	b = append(b, ',')
	switch {
	case multiline:
		b = append(b, g.comments.multiline[pick%uint64(len(g.comments.multiline))]...)
	case kind < 60: // empty
	case kind < 90:
		b = append(b, words[pick%uint64(len(words))]...)
	default:
		b = append(b, g.comments.quoted[pick%uint64(len(g.comments.quoted))]...)
	}
	return append(b, l.terminator...)
}

// appendTS appends the Unix time t as 2006-01-02T15:04:05 (UTC). The date part is formatted
// once per day; rows are one second apart, so that is once per 86400 rows.
func (g *rowGen) appendTS(b []byte, t int64) []byte {
	if day := t / secsPerDay; day != g.day {
		g.day = day
		g.dayText = time.Unix(day*secsPerDay, 0).UTC().AppendFormat(g.dayText[:0], "2006-01-02T")
	}
	s := t % secsPerDay
	b = append(b, g.dayText...)
	b = append2(b, s/3600)
	b = append(b, ':')
	b = append2(b, s/60%60)
	b = append(b, ':')
	return append2(b, s%60)
}

// append2 appends v (0..99) as two digits.
func append2(b []byte, v int64) []byte {
	return append(b, byte('0'+v/10), byte('0'+v%10))
}

// addSample appends id to s unless s is full or already holds it.
func addSample(s []uint64, id uint64) []uint64 {
	if len(s) == sampleIDs {
		return s
	}
	for _, x := range s {
		if x == id {
			return s
		}
	}
	return append(s, id)
}
