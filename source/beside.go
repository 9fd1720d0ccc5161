package source

import (
	"context"
	"errors"
	"fmt"
)

// Beside returns compressed, a Tabled source of a compressed file, with its
// plain bytes read from plain, a source of the same bytes (the file that
// csvidx compress wrote compressed from): a build of its index scans them
// there instead of decoding them. Its table, identity and file are
// compressed's. That plain holds the same bytes is the caller's word; a
// size that differs from compressed's is an error. Closing it closes both.
func Beside(compressed Tabled, plain Source) (Tabled, error) {
	if compressed.Size() != plain.Size() {
		return nil, fmt.Errorf("%s holds %d bytes, not the %d of %s's", plain.Name(), plain.Size(), compressed.Size(), compressed.Name())
	}
	return beside{compressed, plain}, nil
}

// beside is what Beside returns.
type beside struct {
	Tabled
	plain Source
}

// ReadAt reads the plain bytes from the plain source.
func (b beside) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	return b.plain.ReadAt(ctx, p, off)
}

// Close closes both sources.
func (b beside) Close() error { return errors.Join(b.plain.Close(), b.Tabled.Close()) }
