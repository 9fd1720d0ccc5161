package sorter

import "cmp"

// Record is one index entry.
type Record struct {
	Hash   uint64 // xxh3-64 of the key
	Offset uint64 // byte offset of the row in the CSV
}

// compareRecords orders records by (Hash, Offset), the index order, returning -1, 0 or +1
// like cmp.Compare.
func compareRecords(a, b Record) int {
	if c := cmp.Compare(a.Hash, b.Hash); c != 0 {
		return c
	}
	return cmp.Compare(a.Offset, b.Offset)
}

// less reports whether a sorts before b in (Hash, Offset) order.
func less(a, b Record) bool {
	return a.Hash < b.Hash || (a.Hash == b.Hash && a.Offset < b.Offset)
}

// compareOffset orders records by Offset alone, for ranges whose hashes are all equal.
func compareOffset(a, b Record) int {
	return cmp.Compare(a.Offset, b.Offset)
}
