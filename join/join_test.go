package join

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/csvidx/csvidx/index"
)

// TestRightChangingUnderJoins truncates and rewrites RIGHT while joins
// open it and run: resolving RIGHT's index by the key's name, and
// explaining a missing index, read RIGHT's header through a mapping, as
// the lookups read its rows. Each may fail with index.ErrChanged or index.ErrStale, or
// find no index while RIGHT is cut short, but never kill the process with
// SIGBUS (as Locate and explain did, unguarded), and a join that succeeds
// gives the rows of the RIGHT it was built for.
func TestRightChangingUnderJoins(t *testing.T) {
	var rb, lb strings.Builder
	rb.WriteString("k,w\n")
	for i := range 50000 {
		fmt.Fprintf(&rb, "%d,%d\n", i, i)
	}
	lb.WriteString("k\n")
	for i := range 2000 {
		fmt.Fprintf(&lb, "%d\n", i*25)
	}
	orig := []byte(rb.String())
	rp := writeCSV(t, rb.String())
	build(t, rp, &index.BuildOptions{Key: "k"})
	j, err := New(strings.NewReader(lb.String()), rp, &Options{Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := j.Run(context.Background(), &want); err != nil {
		t.Fatal(err)
	}
	j.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() { // the writer
		r := rand.New(rand.NewPCG(38, 7))
		f, err := os.OpenFile(rp, os.O_RDWR, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		for !stop.Load() {
			f.Truncate(int64(r.IntN(len(orig))))
			time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
			f.WriteAt(orig, 0)
			time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
		}
	})
	deadline := time.Now().Add(time.Second)
	var joins, good int
	for time.Now().Before(deadline) {
		joins++
		rightKey := ""
		if joins%2 == 0 {
			rightKey = "w" // no index by w: the error's path reads the header
		}
		j, err := New(strings.NewReader(lb.String()), rp, &Options{Key: "k", RightKey: rightKey})
		if err != nil {
			continue // stale, changed, no index: RIGHT is not what was indexed
		}
		var out bytes.Buffer
		_, err = j.Run(context.Background(), &out)
		j.Close()
		switch {
		case err == nil && !bytes.Equal(out.Bytes(), want.Bytes()):
			t.Fatalf("join %d succeeded with other rows than RIGHT's", joins)
		case err == nil:
			good++
		case !errors.Is(err, index.ErrChanged) && !errors.Is(err, index.ErrStale):
			t.Fatalf("join %d: %v", joins, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d joins, %d of them whole", joins, good)
}
