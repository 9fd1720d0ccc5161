package multifile

import (
	"slices"

	"github.com/csvidx/csvidx/source"
)

// A layer is one set of index files of a manifest, P of them, and what they
// index: the records in [start, end) of the concatenation of the first
// parts parts, whose size is end. The first layer is the manifest's
// Partitions, from the start; each of its Layers follows.
type layer struct {
	partitions []string
	start, end int64
	firstPart  int
	parts      int
}

// layers returns m's layers, the first (its Partitions) first.
func (m *Manifest) layers() []layer {
	n := m.partCount()
	out := []layer{{partitions: m.Partitions}}
	for _, l := range m.Layers {
		out = append(out, layer{partitions: l.Partitions, start: l.Start, firstPart: l.FirstPart})
	}
	for k := range out {
		out[k].end, out[k].parts = m.Size, n
		if k+1 < len(out) {
			out[k].end, out[k].parts = out[k+1].start, out[k+1].firstPart
		}
	}
	return out
}

// partCount returns how many parts m has: its table's count, or those in
// memory before its table is written.
func (m *Manifest) partCount() int {
	if m.Parts != nil {
		return len(m.Parts)
	}
	return m.PartCount
}

// files returns the names of every index file m lists, in every layer.
func (m *Manifest) files() []string {
	out := slices.Clone(m.Partitions)
	for _, l := range m.Layers {
		out = append(out, l.Partitions...)
	}
	return out
}

// concatOn returns the concatenation that layer ly of m, the manifest at
// path, indexes: the first ly.parts parts of l, ly.end bytes. Each part is
// checked as it is opened (see checkWith), with hashes against the hashes
// of its ends, those at URLs opened by openURL when not nil.
func (m *Manifest) concatOn(l partList, path string, ly layer, hashes bool, openURL func(string) (source.Source, error)) *source.Concat {
	parts := concatParts{l: l, dir: dirOf(path), size: ly.end, n: ly.parts}
	return source.NewConcat(path, parts, m.Run, checkWith(l, path, hashes, openURL)) // named after the manifest, which errors name
}

// kept returns how many of layers an update that adds added bytes keeps:
// it indexes the added bytes, as a new layer, together with those of each
// last layer that holds at most twice the bytes of that new layer, so that
// every layer holds more than twice the bytes of the next one, and a
// manifest has at most log2 of its bytes layers. An update that keeps none
// builds the index again.
func kept(layers []layer, added int64) int {
	k := len(layers)
	for k > 0 && layers[k-1].end-layers[k-1].start <= 2*added {
		added += layers[k-1].end - layers[k-1].start
		k--
	}
	return k
}
