// Package format is the on-disk format of a csvidx index, as the essay
// below describes it: the header page ([Header]), the record pages of both
// versions, written by a [PageWriter] (format 1) or a [DensePacker]
// (format 2, a bit stream: bitio.go) and read by a [Reader], which finds a
// key's rows in either version and checks every page it relies on; the
// pages a writer hands to a [PageSink]; the merge of a compaction
// ([MergeDense], its main index decoded on a core of its own by
// [ReadAhead]); and verify's comparison of an index with a fresh build
// ([Comparison]). It holds the bytes' meaning only:
// it imports nothing of package index, which opens, writes and locks the
// files, nor of any package above index.
//
// # Index format
//
// csvidx writes main indexes in format 2 (described second) and tails in
// format 1; it reads both, so an index written before format 2 keeps
// working until a build or compact rewrites it. Both formats share the
// header page and the checked page.
//
// # Format 1
//
// An index file is a sequence of 4096-byte pages. All integers are
// little-endian. Page 0 is the header; pages 1..P hold the records, 255 to
// a page, sorted by (hash, offset), strictly: no record appears twice, and
// every page a lookup checks is checked for that order too. Every page ends with a CRC-32 (IEEE) of
// its first 4092 bytes, so any page read alone can be checked, and a lookup,
// which reads one or two record pages, checks exactly the pages it relies
// on. The checked page, and the magic and version that open the header,
// are a convention the fence file shares (internal/crcpage).
//
// Header page (page 0):
//
//	off   size  field
//	0     8     magic "\x89csvidx\n"
//	8     4     version: 1 or 2
//	12    4     flags: 1 = tail file (rows appended after a main index),
//	                   2 = the first record of the CSV is a header,
//	                   4 = a composite key (bytes 3800 on)
//	16    1     delimiter
//	17    1     quote = '"'
//	18    1     format 2: F, the fingerprint bits (32 to 64); format 1: zero
//	19    1     format 2: W, the offset bits (1 to 63); format 1: zero
//	20    4     key column, 0-based (a composite key's first)
//	24    8     generation: XXH3-64 of the CRC of every record page in
//	            order (4 bytes each) followed by this page's bytes [0, 4092)
//	            with this field zeroed; it names the file's content
//	32    8     parent generation: for a tail, the main index it extends; 0
//	40    8     base offset: the first CSV byte this file covers (0 for a
//	            main index)
//	48    8     resume offset: where the next scan of appended rows starts;
//	            the start of an unterminated last record, else the scanned
//	            size
//	56    8     scanned size: CSV bytes [base, scanned) were read
//	64    8     header record start (0 when there is none)
//	72    8     header record end, past its terminator (0 when there is none)
//	80    8     records: index records in the file
//	88    8     rows: data records read (header excluded)
//	96    8     short rows: data records too short to have the key column
//	104   8     blank lines skipped
//	112   8     record pages P: ceil(records / 255) in format 1
//	120   8     XXH3-64 of CSV bytes [0, min(65536, scanned))
//	128   8     XXH3-64 of CSV bytes [max(0, scanned-65536), scanned)
//	136   2     key name length n, at most 1024
//	138   n     key name: the decoded header field of the key column; for
//	            a composite key, the header fields of its columns as one
//	            CSV record, comma-separated (empty if longer than 1024)
//	...         zero
//	3800  2     a composite key's column count c (2 to 64), else zero
//	3802  4·c   its columns, 0-based, in the key's order
//	...         zero
//	4092  4     CRC-32 (IEEE) of bytes [0, 4092)
//
// A composite key's hash is the XXH3-64 of its encoding: the values of its
// columns in order, joined by the bytes 00 00, with each 00 byte of a value
// written as 00 ff (scan.AppendComposite). A row that lacks any of the
// columns is short.
//
// Record page p (file page p+1), for p in [0, P):
//
//	off   size  field
//	0     16·k  k records, k = 255 except on the last page
//	            each record: hash [8] (XXH3-64 of the key), offset [8]
//	            (byte offset of the row's first byte in the CSV)
//	16·k  ...   zero, up to 4080
//	4080  8     p
//	4088  4     k
//	4092  4     CRC-32 (IEEE) of bytes [0, 4092)
//
// The file is exactly 4096·(1+P) bytes. Reserved bytes must be zero. Record
// i lives on record page i/255 at slot i%255, so the records form one sorted
// array, addressed through a division by a constant.
//
// For example, the CSV "id,user\n1,u1\n2,u2\n3,u1\n" indexed on "user" has
// rows at offsets 8, 13 and 18, and xxh3("u1") = 0x9dc02546854d5df1,
// xxh3("u2") = 0x7f89c7ec957f7b4e (see index's TestFormatExample; the whole file is
// in index/testdata/tiny.csvidx.txt); its one record page starts with
//
//	4e 7b 7f 95 ec c7 89 7f  0d 00 00 00 00 00 00 00   u2 @ 13
//	f1 5d 4d 85 46 25 c0 9d  08 00 00 00 00 00 00 00   u1 @ 8
//	f1 5d 4d 85 46 25 c0 9d  12 00 00 00 00 00 00 00   u1 @ 18
//
// # Format 2
//
// A format 2 main index stores runs: for every fingerprint of a key, the
// top F bits of its hash, the offsets of the rows whose keys have it, in
// increasing order. F = max(32, bits(records) + 6), so that a key absent
// from the index shares a run's fingerprint in fewer than one lookup in 64
// (that lookup reads and rejects the run's rows: never a wrong row); W =
// bits(scanned size). The header is format 1's with version 2, F and W.
// Record pages, in order of (fingerprint, offset); a run longer than a page
// goes on at the start of the next:
//
//	off   size  field
//	0     8     first key: the fingerprint of the page's first run, shifted
//	            to the top of 64 bits (the fence's entry for the page)
//	8     4     p, the record page's number
//	12    4     rows on the page (the sum of its runs' counts)
//	16    2     r, runs on the page (at least 1)
//	18    1     k, the Rice parameter of the fingerprint gaps
//	19    1     flags: 1 = the page's last run goes on on the next page
//	20    2     n, bits in the stream
//	22    ...   the stream, n bits, least significant bit first
//	...         zero
//	4092-2j 2   restart j (j = 1..(r-1)/16): the stream position of run 16j
//	4092  4     CRC-32 (IEEE) of bytes [0, 4092)
//
// Run i of the page, in the stream:
//
//   - its fingerprint: none for run 0 (the page's first key); F bits raw
//     for a restart (i a multiple of 16); else the gap to the previous
//     run's, less one, in Rice code with parameter k: q = gap>>k zeros, a
//     one, then the low k bits, or, when q is 32 or more, 32 zeros and the
//     gap in F bits raw;
//   - its row count c in Elias gamma: as many zeros as c has bits below its
//     top one, a one, then those bits;
//   - its offsets: for c = 1, W bits raw; else Elias-Fano with
//     L = max(0, W - bits(c-1)) low bits: the low L bits of each offset,
//     then, for each offset in turn, its high part's gap to the previous
//     one's (from 0) as that many zeros and a one.
//
// Fingerprints increase strictly within a page, offsets within a run. A
// lookup finds the page where its fingerprint's run may start through the
// fence or a search of the pages' first keys, checks the page's CRC,
// bisects the restarts and decodes at most 16 runs; a run is complete when
// a checked page says it ends there, or the next page begins above it. The
// packer picks k for a page from the previous page's mean gap (the first
// page's from 2^F/records). The file is 4096·(1+P) bytes.
//
// The example above in format 2 (index/testdata/tiny2.csvidx.txt): F = 32, W = 5;
// one record page, first key 0x7f89c7ec00000000 (u2's fingerprint), 3
// rows, 2 runs, k = 30, 51 bits: run 0 is c = 1 ("1") and offset 13
// (01101); run 1 is the gap 0x9dc02546 - 0x7f89c7ec - 1 (q = 0: "1" and
// 30 bits), c = 2 ("010"), then L = 4: the low bits 8 and 2, and the high
// parts 0 and 1 as "1" and "01".
//
// # Lookup
//
// A lookup hashes the key and finds, through the fence or a search over the
// mapped pages, where the key's run starts: in format 1 the first record
// with its hash, in format 2 the run of its fingerprint. It checks the CRC of
// every page it relies on: in format 1 the pages holding the record before
// the run, the run, and the record after it; in format 2 a start page whose
// first key is below the fingerprint (or the page where the run begins),
// the pages of the run, and a page that says the run ends there or a next
// page whose first key is above it. Since the file was sorted when written,
// a run bracketed by checked pages is the complete run, whatever the
// unchecked pages the search stepped through say: a flipped bit can make a
// lookup fail with an error, never silently drop or invent a row. Each
// candidate row is then read from the CSV, parsed, and its key compared byte
// for byte, so neither a shared hash nor a shared fingerprint ever prints a
// wrong row.
//
// # Freshness
//
// The index is stale, and refused, when the CSV is shorter than the scanned
// size or either checksum of its first and last 64 KiB of the scanned part
// changed. Rows appended after the scanned size are not indexed: a lookup
// warns about them and csvidx update (a tail file) adds them. An edit of the
// same size elsewhere in the file is only caught by csvidx verify.
//
// # The source section
//
// A CSV read through a backend (a compressed file: BGZF, zstd frames) is
// indexed by the offsets of its plain bytes, in either format, and its
// main index sets flag 8 and describes the file on disk in the header
// page:
//
//	off   size  field
//	3700  16    the backend's name ("bgzf", "zstd"), zero-padded
//	3716  8     the file's size on disk
//	3724  8     XXH3-64 of the file's bytes [0, min(65536, size)) on disk
//	3732  8     XXH3-64 of the file's bytes [max(0, size-65536), size) on disk
//	3740  8     L, the bytes of the backend's table
//	3748  8     T, table pages: ceil(L / 4080)
//	3756  ...   zero, up to 3800
//
// The table (where each frame starts in the file and in the plain bytes,
// in the backend's own encoding) follows the record pages, on T table
// pages, file pages P+1..P+T:
//
//	off   size  field
//	0     4080  the table's bytes [4080·i, 4080·(i+1)), zero after its end
//	4080  8     i, the table page's number
//	4088  4     the table's bytes on this page
//	4092  4     CRC-32 (IEEE) of bytes [0, 4092)
//
// The generation hashes the table pages' CRCs after the record pages'.
// The file is 4096·(1+P+T) bytes. The checksums of the plain bytes (120,
// 128) are kept too: the index is fresh when both the file on disk and its
// plain bytes are what they were.
package format

import "github.com/csvidx/csvidx/internal/crcpage"

const (
	PageSize       = crcpage.Size      // bytes in every page of an index file
	RecordSize     = 16                // bytes per record: hash and offset
	RecordsPerPage = 255               // records on one page; the last 16 bytes are the trailer
	CRCOffset      = crcpage.SumOffset // the page CRC's place in every page
	PageNoOffset   = 4080              // a record page's number in its trailer
	PageLenOffset  = 4088              // a record page's record count in its trailer
	VersionFlat    = 1                 // the format described above: 16-byte records
	VersionDense   = 2                 // format 2: fingerprint runs in a bit stream (dense.go)
	MaxKeyName     = 1024              // key name bytes kept in the header
	EndHashLen     = 64 << 10          // CSV bytes checked at each end of the scanned part
	Magic          = "\x89csvidx\n"    // first bytes of every index file
	quoteChar      = '"'               // the only quote character
	keyNameOffset  = 138               // start of the key name in the header
	DefaultDelim   = ','               // used when no delimiter is given
	FlagTail       = 1 << 0            // header flag: a tail file
	FlagHeader     = 1 << 1            // header flag: the CSV's first record is a header
	FlagComposite  = 1 << 2            // header flag: the key is composite (keyColsOffset)
	FlagSource     = 1 << 3            // header flag: the CSV was read through a backend (source.go)
	knownFlags     = FlagTail | FlagHeader | FlagComposite | FlagSource
	keyColsOffset  = 3800    // a composite key's column count and columns in the header
	maxOffset      = 1 << 62 // no file offset or size in a valid header is larger
	MinFPBits      = 32      // the fewest fingerprint bits of format 2 (see index's fingerprintBits)
)

// PageCRC returns the checksum of page, which must be PageSize bytes long
// (see crcpage.Sum).
func PageCRC(page []byte) uint32 { return crcpage.Sum(page) }

// recordPages returns how many record pages hold n records.
func recordPages(n uint64) uint64 { return (n + RecordsPerPage - 1) / RecordsPerPage }

// RecordPos returns the file offset of record i.
func RecordPos(i uint64) uint64 {
	return PageSize*(1+i/RecordsPerPage) + RecordSize*(i%RecordsPerPage)
}
