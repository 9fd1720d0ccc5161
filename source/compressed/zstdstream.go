package compressed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/csvidx/csvidx/source"
)

// A ZstdStream is a zstd file with a frame too large to decode whole for a
// read at random (more than MaxFrame plain bytes: zstd's one frame for a
// whole file), read front to back: a source.Walking whose size is known
// from its start. Its reads decode the frames in order as they go, on a
// streaming decoder, keeping the plain bytes decoded last; a read of bytes
// no longer kept decodes again from the start of the frame that holds them.
// A build and a verify read a file so, once; a lookup reads at random, and
// a ZstdStream opened through its table for one (see OpenZstdTable)
// refuses its reads with a *FrameError.
type ZstdStream struct {
	*Framed       // the frames' table; its ReadAt and Prefetch are not used
	refuse  error // the *FrameError every read returns, for a lookup's

	mu   sync.Mutex
	dec  *zstd.Decoder
	kept plainChunks // the plain bytes decoded last; its end is where dec is
	err  error       // a decoding error, returned by every read after it
}

var (
	_ source.Walking = (*ZstdStream)(nil)
	_ source.Tabled  = (*ZstdStream)(nil)
)

// The plain bytes a ZstdStream decodes at a time, and keeps, the last it
// decoded (variables that tests lower).
var (
	zstdChunk       = 1 << 20
	zstdKeep  int64 = streamKeep
)

// openZstdStreamed opens the zstd file at path, walking its frames'
// headers: as a Framed when each of its frames can be decoded whole for a
// read (see MaxFrame), else as a ZstdStream.
func openZstdStreamed(path string) (source.Source, error) {
	s, err := openFramedAny(path, nil, nil, scanZstd)
	if err != nil {
		return nil, err
	}
	s.backend, s.decode = "zstd", (*Framed).unzstd
	if checkFrames(s.blocks, path) == nil {
		return s, nil
	}
	return &ZstdStream{Framed: s}, nil
}

// OpenZstdTable opens the zstd file at path through blocks, its frames'
// table, as OpenZstd does, but when a frame is too large to decode whole
// for a read (see MaxFrame) as a ZstdStream that refuses every read with
// the *FrameError that says so: an index of such a file (a build streams
// it) tells what it holds, but answers no lookup.
func OpenZstdTable(path string, blocks []Block) (source.Source, error) {
	s, err := openFramedAny(path, blocks, nil, scanZstd)
	if err != nil {
		return nil, err
	}
	s.backend, s.decode = "zstd", (*Framed).unzstd
	if err := checkFrames(s.blocks, path); err != nil {
		return &ZstdStream{Framed: s, refuse: err}, nil
	}
	return s, nil
}

// Known returns the plain size, which the frames' headers give.
func (s *ZstdStream) Known() (int64, bool) { return s.Size(), true }

// Prefetch does nothing: a ZstdStream decodes only as it is read.
func (s *ZstdStream) Prefetch([]int64) {}

// ReadAt reads the plain bytes [off, off+len(p)), decoding up to them from
// where the last read ended, or from the start of the frame that holds off
// when it is before the bytes kept or in a frame after the one decoded.
func (s *ZstdStream) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &CorruptError{s.name, 0, "a read before the start"}
	}
	if s.refuse != nil {
		return 0, s.refuse
	}
	end := min(off+int64(len(p)), s.Size())
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if off < end {
		if err := s.decodeTo(ctx, off, end); err != nil {
			return 0, err
		}
		n = s.kept.copyTo(p[:end-off], off)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// decodeTo decodes the plain bytes up to end, keeping those from off on.
// The caller holds mu.
func (s *ZstdStream) decodeTo(ctx context.Context, off, end int64) error {
	if s.err != nil {
		return s.err
	}
	if i, start, _ := s.frameAt(off); s.dec == nil || s.kept.dropped(off) || start > s.kept.end {
		if err := s.restart(i); err != nil {
			return err
		}
	}
	for s.kept.end < end {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := s.kept.buffer(zstdChunk)
		k, err := io.ReadFull(s.dec, b[:cap(b)])
		if k > 0 {
			s.kept.add(b[:k], s.kept.end, max(zstdKeep, end-off+int64(zstdChunk))) // all from off on, at least
		}
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			if s.kept.end != s.Size() {
				s.err = &CorruptError{s.name, s.Covered(), fmt.Sprintf("its frames decode to %d bytes, not the %d their headers give", s.kept.end, s.Size())}
			}
		case err != nil:
			s.err = &CorruptError{s.name, s.blocks[0].Comp, fmt.Sprintf("a frame does not decode: %v", err)}
		}
		if s.err != nil {
			return s.err
		}
		if err != nil {
			break
		}
	}
	return nil
}

// restart sets the decoder at the start of frame i, dropping the bytes
// kept. The caller holds mu.
func (s *ZstdStream) restart(i int) error {
	from := s.blocks[i]
	r := io.NewSectionReader(s.f, from.Comp, s.Covered()-from.Comp)
	if s.dec == nil {
		d, err := zstd.NewReader(r)
		if err != nil {
			return err
		}
		s.dec = d
	} else if err := s.dec.Reset(r); err != nil {
		return err
	}
	s.kept.reset(from.Plain)
	return nil
}

// Close closes the decoder and the file.
func (s *ZstdStream) Close() error {
	if s.dec != nil {
		s.dec.Close()
	}
	return s.Framed.Close()
}
