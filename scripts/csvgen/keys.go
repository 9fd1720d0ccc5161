package main

// -stats and -keys-out: keys for benchmarks. A heavy key, an ordinary key and a missing key
// come from -stats; -keys-out picks n distinct ordinary ids that occur, in random order, so a
// batch lookup touches rows all over the file. The pick depends only on the seed and the
// options, not on -threads.

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// keysStream is the PCG stream number of the key pick; chunks use 0, 1, 2, ...
const keysStream = math.MaxUint64

// pickKeys returns min(n, present) distinct ordinary ids whose bit is set in seen.
// It clears the bits of the ids it picks.
func pickKeys(l *layout, seen []uint64, n int) []uint64 {
	present := 0
	for _, x := range seen {
		present += bits.OnesCount64(x)
	}
	var pcg rand.PCG
	streamSeed(&pcg, l.seed, keysStream)
	r := rand.New(&pcg)

	if 2*n >= present {
		// Most ids are wanted: list them all and shuffle.
		all := make([]uint64, 0, present)
		for j, x := range seen {
			for ; x != 0; x &= x - 1 {
				all = append(all, l.ordinaryFirst+uint64(j*64+bits.TrailingZeros64(x)))
			}
		}
		r.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
		return all[:min(n, len(all))]
	}
	// Few are wanted: draw ids until n of them occur. More than half of the present ids
	// stay unpicked, so each try succeeds with probability above present/(2*ordinaryCount).
	keys := make([]uint64, 0, n)
	for len(keys) < n {
		k := r.Uint64N(l.ordinaryCount)
		if bit := uint64(1) << (k % 64); seen[k/64]&bit != 0 {
			seen[k/64] &^= bit
			keys = append(keys, l.ordinaryFirst+k)
		}
	}
	return keys
}

// writeKeys writes ids to path, one per line.
func writeKeys(path string, ids []uint64) error {
	b := make([]byte, 0, len(ids)*9)
	for _, id := range ids {
		b = strconv.AppendUint(b, id, 10)
		b = append(b, '\n')
	}
	return os.WriteFile(path, b, 0o644)
}

// printStats writes the -stats summary to w as "name: value" lines.
func printStats(w io.Writer, l *layout, s *summary, elapsed time.Duration) {
	share := 0.0
	if l.rows > 0 {
		share = 100 * float64(s.heavyRows) / float64(l.rows)
	}
	mbps := float64(s.bytes) / 1e6 / max(elapsed.Seconds(), 1e-9)
	heavyRange := "none"
	if l.heavyUsers > 0 {
		heavyRange = fmt.Sprintf("1..%d", l.heavyUsers)
	}
	fmt.Fprintf(w, "rows: %d\n", l.rows)
	fmt.Fprintf(w, "bytes: %d\n", s.bytes)
	fmt.Fprintf(w, "time: %.2fs (%.0f MB/s)\n", elapsed.Seconds(), mbps)
	fmt.Fprintf(w, "heavy rows: %d (%.1f%%)\n", s.heavyRows, share)
	fmt.Fprintf(w, "heavy id range: %s\n", heavyRange)
	fmt.Fprintf(w, "ordinary id range: %d..%d\n", l.ordinaryFirst, l.missingID()-1)
	fmt.Fprintf(w, "heavy ids present: %s\n", joinIDs(s.heavySample))
	fmt.Fprintf(w, "ordinary ids present: %s\n", joinIDs(s.ordinarySample))
	fmt.Fprintf(w, "missing id: %d\n", l.missingID())
}

func joinIDs(ids []uint64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(s, " ")
}
