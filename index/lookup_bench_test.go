package index

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkLookup looks up the keys of $CSVIDX_BENCH_KEYS in the CSV
// $CSVIDX_BENCH_CSV, whose index must exist: for profiling the lookup path
// on a big file (scripts/ holds the benchmark that reports latencies).
func BenchmarkLookup(b *testing.B) {
	csvPath, keysPath := os.Getenv("CSVIDX_BENCH_CSV"), os.Getenv("CSVIDX_BENCH_KEYS")
	if csvPath == "" || keysPath == "" {
		b.Skip("set CSVIDX_BENCH_CSV and CSVIDX_BENCH_KEYS")
	}
	data, err := os.ReadFile(keysPath)
	if err != nil {
		b.Fatal(err)
	}
	keys := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	ix, err := Open(csvPath, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	rows := 0
	visit := func([]byte) error { rows++; return nil }
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := ix.Lookup(keys[i%len(keys)], visit); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}
