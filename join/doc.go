// Package join joins a stream of CSV records, LEFT, with an indexed CSV,
// RIGHT: each LEFT row is looked up in RIGHT's index, in constant memory
// whatever the sizes (see [Join.Run]). Inner, left, right, full, semi and
// anti joins, as xsv and qsv name them, and right semi and right anti
// joins, as DuckDB and polars do.
//
// It stands above package index and reads RIGHT only through the index's
// exported row API ([index.Index.Rows], Data, Scan, Guard, ReadAhead); it
// imports nothing above index (no command line, no binding), and index
// imports nothing of it.
//
// # Inside
//
// [New] reads LEFT's header, resolves LEFT's key and opens RIGHT's index
// (join.go). [Join.Run] reads LEFT in batches on one goroutine and joins
// them on a worker per core, each into its own buffer, the batches'
// outputs written in LEFT's order (run.go, worker.go). A worker finds the
// rows of a batch's keys at once (index.Rows.Find: the keys in the order
// of their hashes, the rows' first bytes loaded together), a bounded
// number of candidate rows at a time; a key with more rows than that
// streams them (index.Rows.Each). For the joins that print RIGHT's rows
// after LEFT's (right, full, right semi, right anti) a bit per possible
// RIGHT row records which rows matched, in memory or, past the memory
// limit, in a temporary file (bits.go). A join that prints the key once
// cuts RIGHT's key columns out of its rows as written (coalesce.go). A
// join refuses to write over its own input (output.go), and explains a
// missing index from RIGHT's header (rightkey.go).
package join
