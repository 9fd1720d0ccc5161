// Command touch is the floor of an exact count of a key's rows from a
// mapped CSV (scripts/heavy): as a process, it maps the CSV and reads the
// first byte of each row whose offset a file lists, one per line, which
// is the least an exact count that reads each candidate row's key does:
// a page fault for each row on a page of its own. It prints how many
// offsets it read, and the sum of the bytes (printed, so that the
// compiler keeps the loads). With -pread it reads instead 128 bytes at
// each offset with pread(2), a system call a row and no page fault: the
// floor of the other way to read a few bytes of each of many rows.
//
//	touch [-pread] CSV OFFSETS
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
)

func main() {
	if err := touch(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "touch:", err)
		os.Exit(2)
	}
}

func touch(args []string) error {
	pread := len(args) > 0 && args[0] == "-pread"
	if pread {
		args = args[1:]
	}
	if len(args) != 2 {
		return fmt.Errorf("usage: touch [-pread] CSV OFFSETS")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	offs, err := os.Open(args[1])
	if err != nil {
		return err
	}
	var sum byte
	n := 0
	buf := make([]byte, 128)
	sc := bufio.NewScanner(offs)
	for sc.Scan() {
		off, err := strconv.Atoi(sc.Text())
		if err != nil || off < 0 || off >= len(data) {
			return fmt.Errorf("offset %q: not in the CSV", sc.Text())
		}
		if pread {
			if _, err := f.ReadAt(buf, int64(off)); err != nil && err != io.EOF {
				return err
			}
			sum += buf[0]
		} else {
			sum += data[off]
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Println(n, sum) // the sum printed, so that the loads are made
	return nil
}
