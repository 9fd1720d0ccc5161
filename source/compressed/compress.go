package compressed

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
)

// Compress writes files csvidx reads at random: the plain bytes cut into
// frames of a fixed size, each compressed alone on one of several cores and
// written in order. zstd frames are followed by the seek table of the
// seekable format (a skippable frame that zstd -d skips, and that other
// seekable readers use); BGZF members are bgzip's, ending with its empty
// member. Either reads back whole with zstd -d or gzip -d.

// CompressOptions say how Compress writes.
type CompressOptions struct {
	// Format is "zstd" (the default) or "bgzf".
	Format string
	// FrameBytes is the plain bytes of a zstd frame (DefaultFrameBytes
	// when 0); a BGZF member always holds BGZFBlockBytes.
	FrameBytes int
	// Level is the compression level: zstd's 1 to 22 (1 when 0), mapped to
	// klauspost/compress's four speeds; deflate's 1 to 9 (6 when 0). On a
	// 270 MB orders CSV in 64 KiB frames, level 1 (its fastest) wrote
	// 3.85x smaller in 0.97 s and level 3 3.76x in 1.43 s, where pzstd -3
	// -p2 wrote 3.58x in 0.89 s: small frames suit the fastest.
	Level int
	// Threads is how many frames are compressed at once (all cores when
	// 0).
	Threads int
}

const (
	// DefaultFrameBytes is the plain bytes of the zstd frames Compress
	// writes unless told otherwise: a lookup decodes the frame of each
	// row it reads, so frames are small. On a 10 MB orders CSV (scripts/
	// csvgen), frames of 32, 64, 128, 256 and 1024 KiB at level 3 gave
	// ratios of 3.73, 3.73, 3.71, 3.70 and 3.65 (pzstd -3: 3.62), and a
	// get of 10 rows took 8.6, 9.9, 12.6, 16 and 29 ms (the plain file's:
	// 4.9 ms); 64 KiB is BGZF's member size too.
	DefaultFrameBytes = 64 << 10
	// BGZFBlockBytes is the plain bytes of a BGZF member, as bgzip cuts
	// them: a member of incompressible bytes still fits BSIZE's 64 KiB.
	BGZFBlockBytes = 0xff00
	maxFrameOption = 64 << 20
)

// CompressStats is what Compress wrote.
type CompressStats struct {
	Frames     int   // frames or members holding plain bytes
	PlainBytes int64 // bytes read
	Bytes      int64 // bytes written
}

// A frameJob is one frame to compress: its plain bytes.
type frameJob struct {
	plain []byte
	out   []byte // its compressed frame, once done
	err   error
	done  chan struct{}
}

// Compress reads r to its end and writes its bytes to w compressed as o
// says, and returns what it wrote.
func Compress(ctx context.Context, w io.Writer, r io.Reader, o CompressOptions) (CompressStats, error) {
	var st CompressStats
	threads := o.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	enc, frameBytes, err := o.encoder(threads)
	if err != nil {
		return st, err
	}
	jobs := make(chan *frameJob, threads)
	order := make(chan *frameJob, 2*threads) // frames in flight, in order
	var wg sync.WaitGroup
	for range threads {
		wg.Go(func() {
			for j := range jobs {
				j.out, j.err = enc(j.plain)
				close(j.done)
			}
		})
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(jobs)
		for {
			if err := ctx.Err(); err != nil {
				readErr <- err
				return
			}
			buf := make([]byte, frameBytes)
			n, err := io.ReadFull(r, buf)
			if n > 0 {
				j := &frameJob{plain: buf[:n], done: make(chan struct{})}
				order <- j
				jobs <- j
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				readErr <- nil
				return
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	var sizes [][2]uint32 // a zstd frame's compressed and plain sizes, for the seek table
	var werr error
	for j := range order {
		<-j.done
		if werr == nil && j.err != nil {
			werr = j.err
		}
		if werr == nil {
			_, werr = w.Write(j.out)
		}
		st.Frames++
		st.PlainBytes += int64(len(j.plain))
		st.Bytes += int64(len(j.out))
		sizes = append(sizes, [2]uint32{uint32(len(j.out)), uint32(len(j.plain))})
	}
	wg.Wait()
	if err := <-readErr; err != nil {
		return st, err
	}
	if werr != nil {
		return st, werr
	}
	var end []byte
	if o.Format == "bgzf" {
		end = bgzfEOF
	} else {
		end = seekTable(sizes)
	}
	_, err = w.Write(end)
	st.Bytes += int64(len(end))
	return st, err
}

// encoder returns what compresses one frame in the format o says, on up
// to threads goroutines at once, and the plain bytes of a frame.
func (o CompressOptions) encoder(threads int) (func([]byte) ([]byte, error), int, error) {
	switch o.Format {
	case "", "zstd":
		n := o.FrameBytes
		if n == 0 {
			n = DefaultFrameBytes
		}
		if n < 1 || n > maxFrameOption {
			return nil, 0, fmt.Errorf("frames of %d bytes: give 1 byte to %d MiB", n, maxFrameOption>>20)
		}
		level := o.Level
		if level == 0 {
			level = 1
		}
		if level < 1 || level > 22 {
			return nil, 0, fmt.Errorf("zstd level %d: give 1 to 22", level)
		}
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
			zstd.WithEncoderConcurrency(threads), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(true))
		if err != nil {
			return nil, 0, err
		}
		return func(p []byte) ([]byte, error) { return e.EncodeAll(p, nil), nil }, n, nil
	case "bgzf":
		if o.FrameBytes != 0 && o.FrameBytes != BGZFBlockBytes {
			return nil, 0, fmt.Errorf("BGZF members hold %d bytes; the frame size is zstd's", BGZFBlockBytes)
		}
		level := o.Level
		if level == 0 {
			level = 6
		}
		if level < 1 || level > 9 {
			return nil, 0, fmt.Errorf("deflate level %d: give 1 to 9", level)
		}
		return func(p []byte) ([]byte, error) { return bgzfMember(p, level) }, BGZFBlockBytes, nil
	}
	return nil, 0, fmt.Errorf("format %q: give zstd or bgzf", o.Format)
}

// bgzfMember returns the BGZF member of plain (at most BGZFBlockBytes).
func bgzfMember(plain []byte, level int) ([]byte, error) {
	var b bytes.Buffer
	b.Write([]byte{0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0, 0, 0}) // BSIZE at 16, set below
	fw, err := flate.NewWriter(&b, level)
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(plain); err != nil {
		return nil, err
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:], crc32.ChecksumIEEE(plain))
	binary.LittleEndian.PutUint32(t[4:], uint32(len(plain)))
	b.Write(t[:])
	m := b.Bytes()
	if len(m) > bgzfMaxBlock {
		return nil, errors.New("a BGZF member of more than 64 KiB")
	}
	binary.LittleEndian.PutUint16(m[16:], uint16(len(m)-1))
	return m, nil
}

// seekTable returns the seek table of the seekable zstd format for frames
// of the given compressed and plain sizes: a skippable frame (magic
// 0x184D2A5E) of one entry per frame, without checksums, and its footer.
func seekTable(sizes [][2]uint32) []byte {
	le := binary.LittleEndian
	body := make([]byte, 0, 8*len(sizes)+9)
	for _, s := range sizes {
		body = le.AppendUint32(body, s[0])
		body = le.AppendUint32(body, s[1])
	}
	body = le.AppendUint32(body, uint32(len(sizes)))
	body = append(body, 0) // the descriptor: no checksums
	body = le.AppendUint32(body, 0x8F92EAB1)
	frame := le.AppendUint32(nil, 0x184D2A5E)
	frame = le.AppendUint32(frame, uint32(len(body)))
	return append(frame, body...)
}
