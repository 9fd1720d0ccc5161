package main

import "strconv"

// hcase is one hostile file: how to write it and how to index it.
type hcase struct {
	ID        string
	Name      string
	Key       string // --key
	NoHeader  bool
	MustBuild bool // a clean error is a failure too
	Probes    []string
	Write     func(g *gen, size int64)
}

// plainCase is the reference: an ordinary CSV of the same size, whose
// build time the hostile builds are compared with.
var plainCase = hcase{
	ID: "0", Name: "plain", Key: "user", MustBuild: true,
	Probes: []string{"u0", "u7", "u99999", "u100000"},
	Write:  writePlain,
}

// cases are the hostile files, in the order of issue 9, item 7.
var cases = []hcase{
	{ID: "1", Name: "unterminated quote", Key: "key", MustBuild: true,
		Probes: []string{"k3", "k5", "k6", "k100", "k1000"}, Write: writeUnterminated},
	{ID: "2a", Name: "giant field", Key: "key",
		Probes: []string{"k1", "k2", "k3", "kfake"}, Write: writeGiantField},
	{ID: "2b", Name: "giant key field", Key: "key",
		Probes: []string{"k1", "k2", "k3", "kfake"}, Write: writeGiantKey},
	{ID: "3", Name: "newlines in quotes", Key: "key",
		Probes: []string{"u7", "u999", "f3", "u1000"}, Write: writeQuotedNewlines},
	{ID: "4", Name: "2-byte records", Key: "0", NoHeader: true,
		Probes: []string{"a", "Z", "9", "", "ab"}, Write: writeTiny},
	{ID: "5", Name: "NUL bytes", Key: "key",
		Probes: []string{"\x00", "\x00k7", "\x00q3\"", "k7", "\x00k7\x00", "\x00\x00unique\x00"}, Write: writeNUL},
	{ID: "6", Name: "invalid UTF-8", Key: "key",
		Probes: []string{"\xff7", "\xc3(", "\xed\xa0\x803", "\xc0\xaf", "\x80\x81unique", "\xff", "7"}, Write: writeInvalidUTF8},
	{ID: "7", Name: "million columns", Key: "key",
		Probes: []string{"WIDE", "", "u7", "u1000"}, Write: writeWide},
}

// row builds a record from its parts; num appends a number.
func row(b []byte, parts ...string) []byte {
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func num(i int64) string { return strconv.FormatInt(i, 10) }
