package sorter

// MaskHashes makes Finish keep only the hash bits that mask has: it emits
// every record with Hash&mask, sorted by (Hash&mask, Offset). mask must
// keep the top 32 bits, which hold the partition digits. Call it before
// Finish; the records added before and after are masked alike.
func (s *Sorter) MaskHashes(mask uint64) {
	if mask>>32 != 1<<32-1 {
		panic("sorter: MaskHashes must keep the top 32 bits")
	}
	s.mask = mask
}

// maskHashes masks the hashes of recs in place, as MaskHashes said.
func (s *Sorter) maskHashes(recs []Record) {
	if s.mask == ^uint64(0) {
		return
	}
	for i := range recs {
		recs[i].Hash &= s.mask
	}
}
