// Package sorter sorts index records by (Hash, Offset): the sort step of the index build.
//
// # What is sorted
//
// A [Record] is 16 bytes: the xxh3-64 hash of a row's key and the row's byte offset in the CSV.
// The index is the array of all records in ascending (Hash, Offset) order, so the rows of one
// key are contiguous and in file order. Hashes are close to uniform 64-bit values, but real
// data has heavy keys (one customer with millions of rows, an empty key in half the rows), so
// the sort must stay fast, and never go quadratic, when many records share a hash.
//
// # Algorithm: stable MSD radix sort over two buffers
//
// [Sort] is a most-significant-digit radix sort on the hash, with a scratch buffer as large
// as the input. For one range of records, whose hashes are known to agree above bit hi:
//
//  1. Count: a histogram of the next digit, the w bits below hi. The same pass ORs h^h0 over
//     all hashes h (h0 the first), which shows the highest bit in which any two differ.
//  2. If no bit differs, every hash is equal: see step 6. If every record falls in one bucket,
//     nothing is moved: the digit restarts at the highest differing bit, so a long shared
//     prefix (a heavy key among few others) costs one more count, not one pass per digit.
//  3. Scatter: a stable move of the records into the other buffer, bucket by bucket.
//  4. If no bucket holds more than 24 records, one insertion sort over the whole range
//     finishes it: no record moves out of its bucket, so that costs at most 24 moves per
//     record, and on uniform input about one comparison per record.
//  5. Otherwise each bucket is sorted the same way on the next digit, with the two buffers'
//     roles swapped; buckets of at most 24 records by insertion sort on (Hash, Offset).
//     A flag says which buffer must receive the result, so nothing is copied back at the end.
//  6. A range whose hashes are all equal is ordered by Offset: it is checked for order in one
//     pass and only if that fails sorted by slices.SortFunc on Offset.
//
// The digit width follows the range size, to take as few passes over memory as possible.
// A range that fits in the L2 cache (32K records) is split in one pass to about one record per
// bucket (up to 13 bits). A larger range is split into pieces of about 4K records, with at
// most 10 bits per pass: wider scatters out of cache measured 2-3x slower per record, the
// write streams exceeding the L1 cache and the TLB. So 1M uniform records take two passes
// (9 and 12 bits), 100M three (10, 5 and 12 bits), then the insertion sort.
//
// Worst case: a level costs O(n) (its histogram has at most 2n entries, plus at most one
// restarted count) and consumes at least one bit of the hash, and equal hashes stop the
// recursion, so no input costs more than 64 levels; the adversarial inputs (two interleaved
// giant keys, all records on one hash, keys differing only in the low bits) cost a few.
// slices.SortFunc runs only on equal-hash ranges that are not already in Offset order, in
// O(n log n). Nothing is quadratic.
//
// The hot loops are small functions, unrolled by two, with shift counts and digits masked so
// that the compiler drops bounds checks on the histogram; that made the sort 1.5x faster.
//
// # Sorter: a distribution sort within a memory budget
//
// A [Sorter] takes the build's records in Offset order and sorts them within Options.MemLimit,
// spilling to temporary files beyond it. Because the hashes are uniform, it sorts by
// distribution rather than by merging sorted runs:
//
//  1. Add appends records to a staging buffer. A full one (an eighth of the budget, at most
//     16 MiB) is scattered, stably, by the top 10 hash bits into an arena: 1024 partitions,
//     each a contiguous run of the arena in Add order.
//  2. When the arenas fill the budget, they are written to a spill file as one generation:
//     partition 0 of every arena, then partition 1, and so on, so that each partition of a
//     generation is one contiguous stretch of the file. Their buffers are reused. With
//     several threads there is one spill file per thread (up to 4), each holding a range
//     of partitions and written by a goroutine of its own.
//  3. Finish takes the partitions in order. One that fits twice in the budget (almost all: a
//     partition holds 1/1024 of uniform records) is gathered, one read per generation and a
//     copy per arena, and radix-sorted (below) on the bits under its partition digit. One
//     that does not is streamed as it is if all its hashes are equal (a single huge key: its
//     records are already in Offset order), and otherwise distributed again by the next 10
//     bits into a sub-Sorter with the same budget.
//
// No merge is needed: partitions are disjoint ranges of hashes, written out in order. Every
// record is written to a spill file at most once per level and read back once, and at the
// default limit most never are. Memory: the staging buffer, the arenas (together within the
// budget), and the gather and scratch buffers of the largest partition, which Finish makes
// room for by spilling first. The budget has a floor of a few KiB, below which the
// bookkeeping would outweigh the records.
//
// In parallel: a scan that runs on several goroutines groups each chunk's records by partition
// where it scanned them, with a [Distributor], and [Sorter.AddGroup] takes a group's buffer
// over as an arena, without copying it, handing back the buffer of a group it spilled. With
// Options.Threads above 1, Finish sorts that many partitions at once, each worker with two
// pairs of buffers when the arenas leave room, and the worker that completes the oldest
// partition not yet emitted emits it and the ready ones after it: no emitting goroutine has
// to be woken for each partition. With several threads, AddGroup also spills in the
// background: once the budget is all but full (an eighth left) it writes the oldest arenas on
// a goroutine of its own while groups go on arriving in the room left, and waits only if that
// room runs out, so that the goroutine feeding the Sorter, which the scanning workers wait
// on, is not held up by the disk (five spills of 0.1 s each in a 100M-row build at 1 GiB).
//
// The output depends only on the records: the same at any limit, spilled or not, with any
// number of threads.
package sorter
