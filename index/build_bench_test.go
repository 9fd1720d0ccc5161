package index

import (
	"context"
	"os"
	"testing"
)

// BenchmarkBuild builds the index of the CSV $CSVIDX_BENCH_CSV keyed on
// user_id: for profiling the build on a big file (scripts/bench reports
// build times).
func BenchmarkBuild(b *testing.B) {
	csvPath := os.Getenv("CSVIDX_BENCH_CSV")
	if csvPath == "" {
		b.Skip("set CSVIDX_BENCH_CSV")
	}
	st, err := os.Stat(csvPath)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	out := b.TempDir() + "/bench.csvidx"
	for b.Loop() {
		if _, err := Build(context.Background(), csvPath, &BuildOptions{Key: "user_id", IndexPath: out}); err != nil {
			b.Fatal(err)
		}
	}
}
