package chunked

import "github.com/csvidx/csvidx/sorter"

// A Sink takes the index records of a scan, in file order: batches of
// records, and chunks' records grouped by partition with the sink's own
// distributors. A [sorter.Sorter] is one.
type Sink interface {
	// Add takes a batch of records; the scan reuses the slice.
	Add(recs []sorter.Record) error
	// AddGroup takes a chunk's records, grouped; it may keep the group's
	// buffers and hand back others.
	AddGroup(g *sorter.Group) error
	// NewDistributor returns what groups records for AddGroup; each worker
	// has its own.
	NewDistributor() *sorter.Distributor
	// InputDone tells the sink how much of the scan is done: the records
	// added so far come from done of total bytes.
	InputDone(done, total int64)
}
