package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/csvidx/csvidx/scripts/internal/run"
)

// timeCompacts times, rounds times for each side in turns, a compact of a
// main index of the first nine tenths of the CSV's bytes with a tail of the
// rest, on a cold cache (the CSV copy, the index and the tail dropped from
// the page cache first).
func timeCompacts(s *run.Script, sides []*side, rounds int) error {
	cp := filepath.Join(s.Work, "grown.csv")
	cut, err := copyCut(s.CSV, cp)
	if err != nil {
		return err
	}
	defer os.Remove(cp)
	st, err := os.Stat(s.CSV)
	if err != nil {
		return err
	}
	return run.Turns(max(1, rounds), len(sides), func(_, i int) error {
		sd := sides[i]
		idx := sd.idx + ".compact"
		if err := run.RemoveIndex(idx); err != nil {
			return err
		}
		if err := os.Truncate(cp, cut); err != nil {
			return err
		}
		if _, err := run.Output(sd.Bin, "build", cp, "--key", "user_id", "--index", idx, "-q"); err != nil {
			return err
		}
		if err := appendFrom(s.CSV, cp, cut, st.Size()); err != nil {
			return err
		}
		if _, err := run.Output(sd.Bin, "update", cp, "--index", idx, "--no-compact", "-q"); err != nil {
			return err
		}
		run.DropCache(cp, idx, idx+".tail", idx+".fence")
		m, err := run.Timed(sd.Bin, "compact", cp, "--index", idx, "-q")
		if err != nil {
			return err
		}
		sd.Compact = append(sd.Compact, m.Seconds)
		return run.RemoveIndex(idx)
	})
}

// copyCut copies src to dst and returns the length of its first nine
// tenths, cut after a newline.
func copyCut(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return 0, err
	}
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return 0, err
	}
	if err := out.Close(); err != nil {
		return 0, err
	}
	buf := make([]byte, 1<<16)
	at := st.Size() * 9 / 10
	n, err := in.ReadAt(buf, at)
	if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
		return at + int64(i) + 1, nil
	}
	return 0, fmt.Errorf("no newline after byte %d of %s: %v", at, src, err)
}

// appendFrom appends bytes [from, to) of src to dst.
func appendFrom(src, dst string, from, to int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.NewSectionReader(in, from, to-from)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
