package chunked

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/csvidx/csvidx/sorter"
)

// BenchmarkRun scans 64 MiB of ordinary rows into a sorter that holds them
// all, sequentially and with two workers: the scan alone, without the sort
// and the index writing of a build.
func BenchmarkRun(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("id,user,ts,amount\n")
	for i := 0; buf.Len() < 64<<20; i++ {
		fmt.Fprintf(&buf, "%d,u%d,2024-01-01T00:%02d:%02d,%d.%02d\n", i, i%100003, i/60%60, i%60, i%997, i%100)
	}
	data := buf.Bytes()
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				srt := sorter.New(sorter.Options{MemLimit: 1 << 30, Threads: threads, TmpDir: b.TempDir()})
				s := &Scan{Data: data, Delim: ',', KeyCol: 1, Plan: NewPlan(threads, 1<<30, int64(len(data)), Tuning{})}
				if _, err := s.Run(context.Background(), bytes.IndexByte(data, '\n')+1, srt); err != nil {
					b.Fatal(err)
				}
				srt.Close()
			}
		})
	}
}
