package mapping

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular means a path names a directory, a FIFO, a device or a
// socket: a mapping, and random access, need a regular file.
var ErrNotRegular = errors.New("not a regular file")

// regular returns f with its stat if it is a regular file, and closes it
// with an error wrapping ErrNotRegular if not.
func regular(f *os.File) (*os.File, fs.FileInfo, error) {
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is %s, %w", f.Name(), Kind(st.Mode()), ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Kind says what kind of file mode m is, for messages: "a regular file",
// "a directory", "a FIFO (named pipe)", and so on.
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file (" + m.Type().String() + ")"
}
