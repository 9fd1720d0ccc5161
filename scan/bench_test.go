package scan

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/csvidx/csvidx/internal/xxh3"
)

// ordersData returns about size bytes of orders-shaped CSV
// (order_id,user_id,ts,amount,status,comment) like scripts/csvgen writes:
// 60% of comments empty, 30% a plain word, 10% quoted with commas and "".
// With quoted set, every comment is quoted.
func ordersData(size int, quoted bool) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	statuses := []string{"pending", "paid", "shipped", "delivered", "cancelled"}
	comments := []string{"", "", "", "", "", "", "fast", "late", "gift", "\"gift, wrap \"\"fragile\"\"\""}
	if quoted {
		comments = []string{"\"gift, wrap \"\"fragile\"\"\"", "\"call first, then ring\"", "\"\""}
	}
	b := []byte("order_id,user_id,ts,amount,status,comment\n")
	for id := 1; len(b) < size; id++ {
		b = strconv.AppendInt(b, int64(id), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.IntN(10_000_000)), 10)
		b = append(b, ",2024-03-05T12:34:56,"...)
		b = strconv.AppendInt(b, int64(r.IntN(1000)), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(10+r.IntN(90)), 10)
		b = append(b, ',')
		b = append(b, statuses[r.IntN(len(statuses))]...)
		b = append(b, ',')
		b = append(b, comments[r.IntN(len(comments))]...)
		b = append(b, '\n')
	}
	return b
}

// BenchmarkScan measures the build's scan stage on one core: find every
// record, decode its key and hash it with xxh3.
func BenchmarkScan(b *testing.B) {
	plain, quoted := ordersData(64<<20, false), ordersData(64<<20, true)
	for _, bc := range []struct {
		name string
		data []byte
		key  int
		hash bool
	}{
		{"key1+xxh3", plain, 1, true},
		{"key1", plain, 1, false},
		{"key0+xxh3", plain, 0, true},
		{"key5+xxh3", plain, 5, true},
		{"quoted/key1+xxh3", quoted, 1, true},
		{"quoted/key5+xxh3", quoted, 5, true},
	} {
		data := bc.data
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var sum uint64
			for b.Loop() {
				s, _ := New(data, ',', bc.key)
				for s.Next() {
					if k, ok := s.Key(); ok {
						if bc.hash {
							sum += xxh3.Hash(k)
						} else {
							sum += uint64(len(k))
						}
					}
				}
			}
			_ = sum
		})
	}
}
