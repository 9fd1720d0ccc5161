package format

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestPageSet adds pages from several goroutines, across and within blocks,
// and checks membership against a map.
func TestPageSet(t *testing.T) {
	const pages = 3*4096 + 17
	s := NewPageSet(pages)
	want := make([]bool, pages)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 2000 {
				pg := r.Uint64N(pages)
				s.Add(pg)
				mu.Lock()
				want[pg] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	s.Add(pages - 1)
	want[pages-1] = true
	for pg := range uint64(pages) {
		if s.Has(pg) != want[pg] {
			t.Fatalf("page %d: has %v, want %v", pg, s.Has(pg), want[pg])
		}
	}
}
