package compressed

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// A zstd file (RFC 8878) is a series of frames, each of which decodes
// alone; skippable frames between them hold no data (pzstd writes one
// before each frame, the seekable format a seek table at the end). zstd
// writes one frame for a whole file; pzstd, the seekable format and
// csvidx compress write many, which is what makes the plain bytes at an
// offset cheap to reach.
//
// A frame: the magic 28 b5 2f fd, a header that may give the frame's plain
// size (its content size), blocks (a 3-byte header each: last-block bit,
// type, size), and an optional 4-byte checksum. Walking the block headers
// finds where a frame ends without decoding it.

// ScanZstd walks the frames of the zstd file r of size bytes and returns
// where each one that holds plain bytes starts, with a last Block holding
// the file's size and the plain stream's (see ScanBGZF). A frame whose
// header does not give its plain size is decoded to count it.
func ScanZstd(r io.ReaderAt, size int64, path string) ([]Block, error) {
	return scanZstd(r, Block{}, size, path)
}

// scanZstd walks the frames of the zstd file r of size bytes from
// from.Comp on, where a frame (or a skippable one) must start, and returns
// their table (see ScanZstd), with plain offsets from from.Plain on.
func scanZstd(r io.ReaderAt, from Block, size int64, path string) ([]Block, error) {
	var blocks []Block
	plain := from.Plain
	head := make([]byte, zstd.HeaderMaxSize)
	for off := from.Comp; off < size; {
		n, err := r.ReadAt(head[:min(int64(len(head)), size-off)], off)
		if err != nil && err != io.EOF {
			return nil, err
		}
		var h zstd.Header
		if err := h.Decode(head[:n]); err != nil {
			return nil, &CorruptError{path, off, "not a zstd frame: " + err.Error()}
		}
		if h.Skippable {
			off += int64(h.HeaderSize) + int64(h.SkippableSize)
			if off > size {
				return nil, &CorruptError{path, off, "the file ends inside a skippable frame"}
			}
			continue
		}
		if !h.HasCheckSum {
			return nil, errNoChecksum(path, off)
		}
		end, err := zstdFrameEnd(r, off, size, &h, path)
		if err != nil {
			return nil, err
		}
		n64 := int64(h.FrameContentSize)
		if !h.HasFCS {
			if n64, err = zstdDecodedSize(io.NewSectionReader(r, off, end-off)); err != nil {
				return nil, &CorruptError{path, off, "the frame does not decode: " + err.Error()}
			}
		}
		if n64 > 0 {
			blocks = append(blocks, Block{off, plain})
			plain += n64
		}
		off = end
	}
	return append(blocks, Block{size, plain}), nil
}

// errNoChecksum is the error for a zstd frame without its content
// checksum (zstd --no-check): a damaged one may decode to other bytes, and
// a lookup would print a wrong row.
func errNoChecksum(path string, off int64) error {
	return fmt.Errorf("%s has a zstd frame without a checksum at byte %d, so csvidx could not tell a damaged one: "+
		"recompress it with its checksums (zstd without --no-check, or csvidx compress)", path, off)
}

// zstdFrameEnd returns where the frame at off, whose header is h, ends:
// past its last block and its checksum.
func zstdFrameEnd(r io.ReaderAt, off, size int64, h *zstd.Header, path string) (int64, error) {
	pos := off + int64(h.HeaderSize)
	var bh [3]byte
	for {
		if _, err := r.ReadAt(bh[:], pos); err != nil {
			if err == io.EOF {
				return 0, &CorruptError{path, off, "the file ends inside a frame"}
			}
			return 0, err
		}
		v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last, typ, bsize := v&1 == 1, (v>>1)&3, int64(v>>3)
		switch typ {
		case 1: // RLE: one byte, repeated
			bsize = 1
		case 3:
			return 0, &CorruptError{path, pos, "a zstd block of the reserved type"}
		}
		pos += 3 + bsize
		if last {
			break
		}
	}
	if h.HasCheckSum {
		pos += 4
	}
	if pos > size {
		return 0, &CorruptError{path, off, "the file ends inside a frame"}
	}
	return pos, nil
}

// zstdDecodedSize decodes the one frame r holds and returns its size.
func zstdDecodedSize(r io.Reader) (int64, error) {
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return 0, err
	}
	defer d.Close()
	return io.Copy(io.Discard, d)
}

// OpenZstd opens the zstd file at path, reading through blocks, its
// frames' table (see ScanZstd), or through a table it makes by walking
// the frames when blocks is nil.
func OpenZstd(path string, blocks []Block) (*Framed, error) {
	s, err := openFramed(path, blocks, nil, scanZstd)
	if err != nil {
		return nil, err
	}
	s.backend, s.decode = "zstd", (*Framed).unzstd
	return s, nil
}

// ExtendZstd opens the zstd file at path as OpenZstd does, through
// prefix, the frames' table of a prefix of the file (with its end, as
// ScanZstd gave it when the file was that prefix), walking only the frames
// appended since, which must start where the prefix ended (zstd -c more.csv
// >> f.csv.zst).
func ExtendZstd(path string, prefix []Block) (*Framed, error) {
	s, err := openFramed(path, nil, prefix, scanZstd)
	if err != nil {
		return nil, err
	}
	s.backend, s.decode = "zstd", (*Framed).unzstd
	return s, nil
}

// zstdDecoder decodes frames whole for every zstd source, as many at once
// as there are cores (DecodeAll is safe for concurrent use).
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithDecodeAllCapLimit(true))
})

// unzstd decodes frame i, comp (with any skippable frames after it),
// into no more bytes than the table gives it.
func (s *Framed) unzstd(i int, comp []byte) ([]byte, error) {
	at, next := s.blocks[i], s.blocks[i+1]
	d, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	var h zstd.Header
	if err := h.Decode(comp); err != nil || h.Skippable {
		return nil, &CorruptError{s.name, at.Comp, "the frame is not where the index says"}
	}
	if !h.HasCheckSum {
		return nil, errNoChecksum(s.name, at.Comp)
	}
	end, err := zstdFrameEnd(bytes.NewReader(comp), 0, int64(len(comp)), &h, s.name)
	if err != nil {
		return nil, &CorruptError{s.name, at.Comp, "the frame is not where the index says"}
	}
	want := next.Plain - at.Plain
	out, err := d.DecodeAll(comp[:end], make([]byte, 0, want))
	if err != nil {
		return nil, &CorruptError{s.name, at.Comp, fmt.Sprintf("the frame does not decode: %v", err)}
	}
	return out, nil
}
