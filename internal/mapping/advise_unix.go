//go:build unix

package mapping

import "golang.org/x/sys/unix"

func advise(b []byte, a Advice) {
	switch a {
	case Random:
		_ = unix.Madvise(b, unix.MADV_RANDOM) // only a hint: a failure costs speed
	case Sequential:
		_ = unix.Madvise(b, unix.MADV_SEQUENTIAL)
	}
}
