package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/csvidx/csvidx/internal/mapping"
)

// ErrChanged means the file shrank while its mapped bytes were read.
var ErrChanged = errors.New("file changed while being read")

// Identity is what tells one version of a source from another, as far as
// its metadata can: its size, its modification time and, where the system
// has one, the change time of its inode, which no user can set back.
type Identity struct {
	Size    int64
	ModTime time.Time
	Ctime   int64 // nanoseconds; valid when CtimeOK
	CtimeOK bool
	Perm    fs.FileMode // the file's permission bits, which its index files get
	ETag    string      // a remote object's (strong) ETag, which tells its versions apart
}

// IdentityOf returns the identity st describes.
func IdentityOf(st fs.FileInfo) Identity {
	ctime, ok := ChangeTime(st)
	return Identity{Size: st.Size(), ModTime: st.ModTime(), Ctime: ctime, CtimeOK: ok, Perm: st.Mode().Perm()}
}

// Same reports whether now is the same version as id by its metadata: the
// same size, modification time and change time; of a remote object, the
// same size and ETag. It is false when the change time is not known: then
// only the bytes can tell.
func (id Identity) Same(now Identity) bool {
	if id.ETag != "" || now.ETag != "" {
		return id.Size == now.Size && id.ETag == now.ETag
	}
	return id.Size == now.Size && id.ModTime.Equal(now.ModTime) && id.CtimeOK && now.CtimeOK && id.Ctime == now.Ctime
}

// A File is a CSV file opened and mapped whole for reading: its bytes in
// memory, zero-copy, as of opening.
type File struct {
	name     string
	f        *os.File
	m        *mapping.Map
	data     []byte
	id       Identity
	unmapped chan error // set by Release; the unmapping's result
}

var _ Mapped = (*File)(nil)

// OpenFile opens and maps the CSV at path, a regular file (see
// OpenInput), with advice for the kernel's read-ahead.
func OpenFile(path string, advice mapping.Advice) (*File, error) {
	f, st, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	m, err := mapping.File(f, st.Size(), advice)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return &File{name: path, f: f, m: m, data: m.Bytes(), id: IdentityOf(st)}, nil
}

// Name returns the path the file was opened by.
func (f *File) Name() string { return f.name }

// Bytes returns the file's mapped bytes, as of opening; nil once released.
// Read them inside Guard.
func (f *File) Bytes() []byte { return f.data }

// Map returns the file's mapping, for advice to the kernel and for guards
// that span several mappings.
func (f *File) Map() *mapping.Map { return f.m }

// Size returns the file's size as of opening.
func (f *File) Size() int64 { return f.id.Size }

// ReadAt reads the file itself, not its mapping: a file that shrank is an
// io.EOF there, not a fault. A local read does not wait on ctx.
func (f *File) ReadAt(_ context.Context, p []byte, off int64) (int, error) {
	return f.f.ReadAt(p, off)
}

// Splits returns cut points target bytes apart (at least one byte):
// a plain file reads as well from any offset.
func (f *File) Splits(target int64) []int64 {
	target = max(target, 1)
	cuts := make([]int64, 0, 1+f.id.Size/target)
	for off := int64(0); off < max(f.id.Size, 1); off += target {
		cuts = append(cuts, off)
	}
	return cuts
}

// checkPlain returns a *CompressedError, with the file's first HeadLen
// bytes for the backends to match, if the file starts with a compressed
// format's magic. It reads the mapping's first page, which a reader of the
// file reads anyway (for its checksum), not the file: a plain file costs
// Compression's look at its first bytes, and no copy.
func (f *File) checkPlain() (head []byte, err error) {
	var format string
	if err := f.Guard(func() error {
		if format = Compression(f.data[:min(len(f.data), magicLen)]); format != "" {
			head = bytes.Clone(f.data[:min(len(f.data), HeadLen)])
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if format != "" {
		return head, &CompressedError{Path: f.name, Format: format, BGZF: format == "gzip" && isBGZF(head)}
	}
	return nil, nil
}

// Identity returns the file's identity as of opening.
func (f *File) Identity() Identity { return f.id }

// Current returns the file's identity now.
func (f *File) Current() (Identity, error) {
	st, err := f.f.Stat()
	if err != nil {
		return Identity{}, err
	}
	return IdentityOf(st), nil
}

// Stat returns what the file is now.
func (f *File) Stat() (fs.FileInfo, error) { return f.f.Stat() }

// Guard runs fn, which reads Bytes, turning a fault on them (the file
// shrank meanwhile) into an error that names the file and wraps ErrChanged.
func (f *File) Guard(fn func() error) error {
	err := mapping.Guard(fn, f.m)
	if errors.Is(err, mapping.ErrFault) {
		return fmt.Errorf("%s: %w", f.name, ErrChanged)
	}
	return err
}

// Release unmaps the file on a goroutine of its own, for a reader that has
// read all it needs of it: unmapping a file of gigabytes takes the kernel a
// tenth of a second (4.68 GB), better spent while the records sort than at
// the end. A build calls it once the sort has made its buffers (at the
// first sorted batch): while the unmapping runs, the process can map no new
// memory, and a sort that started with it waited for it with a core idle.
// Bytes is nil afterwards; Close waits for the unmapping. Calls after the
// first do nothing.
func (f *File) Release() {
	if f.unmapped != nil {
		return
	}
	m := f.m
	f.data, f.unmapped = nil, make(chan error, 1)
	go func() { f.unmapped <- m.Close() }()
}

// Close unmaps the file, or waits for Release's unmapping, and closes it.
func (f *File) Close() error {
	var err error
	if f.unmapped != nil {
		err = <-f.unmapped
	} else {
		err = f.m.Close()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}
