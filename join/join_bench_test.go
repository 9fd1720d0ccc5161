package join

import (
	"context"
	"io"
	"os"
	"testing"
)

// BenchmarkJoin joins the CSV $CSVIDX_BENCH_JOIN_LEFT with
// $CSVIDX_BENCH_JOIN_RIGHT, indexed by the key $CSVIDX_BENCH_JOIN_KEY names
// (LEFT's too), writing to io.Discard: for profiling the join's path on big
// files (scripts/pgo.sh; scripts/join is the benchmark that reports times).
func BenchmarkJoin(b *testing.B) {
	left, right, key := os.Getenv("CSVIDX_BENCH_JOIN_LEFT"), os.Getenv("CSVIDX_BENCH_JOIN_RIGHT"), os.Getenv("CSVIDX_BENCH_JOIN_KEY")
	if left == "" || right == "" || key == "" {
		b.Skip("set CSVIDX_BENCH_JOIN_LEFT, CSVIDX_BENCH_JOIN_RIGHT and CSVIDX_BENCH_JOIN_KEY")
	}
	for b.Loop() {
		f, err := os.Open(left)
		if err != nil {
			b.Fatal(err)
		}
		j, err := New(f, right, &Options{Key: key})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := j.Run(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
		j.Close()
		f.Close()
	}
}
