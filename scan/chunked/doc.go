// Package chunked scans a CSV on several cores at once and hands the index
// records of its keyed rows, in file order, to a [Sink]
// (the sorter of an index build). A scan of several keys (Scan.Keys) reads
// each record once and hands each key's records to a sink of its own, so
// that one pass over a file builds several indexes.
//
// # Guessed chunk boundaries with repair
//
// Where a record starts cannot be told from a piece of a CSV alone: a newline
// inside quotes does not end a record. So the data after the header is cut
// into chunks of a few MiB, and every chunk but the first guesses where its
// first record starts, from the bytes after its boundary (see guessStart).
// Workers scan the chunks from their guesses at the same time, each taking
// the records that start before the next boundary.
//
// The results are stitched in order. Chunk k-1, itself exact, stopped where
// its last record ended: that is where chunk k really starts. If chunk k's
// guess was that position, its result is exactly what a sequential scan
// finds, since the scan from a record start is deterministic; it is kept.
// Otherwise the chunk is scanned again from the real start ("repaired"), on
// the stitching goroutine. Only speed depends on the guesses, never the
// result: the records are those of the sequential scan, in its order.
// Workers scan from guesses only while it may pay (see admission): no more
// scans run at once than there are threads, the stitcher's included, and a
// run of wrong guesses pauses the scanning from guesses; a worker then only
// guesses where its chunk starts, and the stitcher scans the chunk in order,
// as a sequential scan does, checking the guess all the same. So a hostile
// file whose every newline is inside quotes costs about the sequential scan.
//
// Three kinds of goroutine run a parallel scan (see run): one hands out the
// chunks, no more than a window ahead of the stitching; the workers guess
// and scan them; and the caller's goroutine stitches their results in order
// and hands them to the sink.
//
// # Memory
//
// At most window chunks are in flight (scanned, not yet stitched), each
// holding at most a set number of records, twice (as scanned and as
// grouped): that is the share of the budget set aside for them, a
// sixteenth. A chunk is sized so that rows of 8 bytes or more never reach
// its number; a chunk of shorter rows stops there, and the stitcher scans
// the rest of it itself, like a repair (for 2-byte rows, three quarters of
// the file is then scanned in order). So the share holds for any file
// without setting aside room for the worst case (16 bytes of records per
// 2-byte row), which took a quarter of the budget: 100M rows of 47 bytes
// spilled 60M records at the default limit instead of 50M. Under a budget
// of a few MiB per thread, the chunks' floor of 64 KiB (8,193 records)
// takes more than the share. The stitching, the sink's Add, and the index
// writing are sequential; the stitching copies no records (the sink takes
// the workers' groups over).
//
// # Inputs and windows
//
// A scan reads its CSV through an [Input], which hands out windows: pieces
// of the CSV with their offsets. A CSV in memory, usually a mapping of the
// whole file (Scan.Data, or a [Mapped] input), is one window at offset 0:
// it is read in place, as one slice, its mapping populated ahead of the
// scan and a worker's faults on it turned into errors. Any other input,
// such as a [ReaderInput] over the io.ReaderAt of a compressed or remote
// file, is read a window at a time (Plan.WindowBytes: by default a chunk
// and the guess's reach past it, up to 4 MiB), with a fresh scanner over
// each; the offsets handed to the sinks are the window's plus the
// scanner's. A record that runs to the end of its window short of the
// input's end (a quote still open, a \r whose \n is in the next window) is
// not taken but read again from its start in the next window, which
// doubles while the record starts where the window's scan did. So every
// record is read whole, and the records, their offsets and the tally are
// those of a scan of the whole CSV in one slice; a record must fit in
// memory (a quote that never closes makes the rest of the input one
// record). A guess reads a window from two bytes before its boundary to
// guessWindow past it, and further windows only to find a first newline
// beyond that.
package chunked
