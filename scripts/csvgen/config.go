package main

import (
	"fmt"
	"math"
	"runtime"
)

// config is what the flags ask for.
type config struct {
	rows         int64   // data rows after the header
	seed         uint64  // the whole output is a function of seed and the options below
	heavyUsers   int64   // heavy users have ids 1..heavyUsers
	heavyFrac    float64 // share of rows that belong to heavy users
	rowsPerUser  float64 // average rows per ordinary user
	multiline    float64 // share of rows whose comment holds a line break
	crlf         bool    // end records with \r\n instead of \n
	bom          bool    // start the file with a UTF-8 byte order mark
	unterminated bool    // leave the last record without a terminator
	unixTS       bool    // write ts as Unix seconds instead of 2006-01-02T15:04:05
	threads      int     // generator goroutines; 0 means one per core
	trackKeys    bool    // remember which ordinary ids occur (for -keys-out)
}

func defaultConfig() config {
	return config{rows: 1000, seed: 1, heavyUsers: 1000, heavyFrac: 0.2, rowsPerUser: 8}
}

func (c *config) validate() error {
	switch {
	case c.rows < 0:
		return fmt.Errorf("-rows %d is negative", c.rows)
	case c.heavyUsers < 0:
		return fmt.Errorf("-heavy-users %d is negative", c.heavyUsers)
	case !(c.heavyFrac >= 0 && c.heavyFrac <= 1):
		return fmt.Errorf("-heavy-frac %v is not between 0 and 1", c.heavyFrac)
	case !(c.multiline >= 0 && c.multiline <= 1):
		return fmt.Errorf("-multiline %v is not between 0 and 1", c.multiline)
	case !(c.rowsPerUser > 0) || math.IsInf(c.rowsPerUser, 0):
		return fmt.Errorf("-rows-per-user %v must be a positive number", c.rowsPerUser)
	case c.threads < 0:
		return fmt.Errorf("-threads %d is negative", c.threads)
	case c.ordinaryUsers() > maxOrdinaryUsers:
		return fmt.Errorf("-rows-per-user %v is too small for -rows %d: more than 2^40 ordinary users", c.rowsPerUser, c.rows)
	}
	return nil
}

// maxOrdinaryUsers bounds the ordinary id range, so its size converts from float64 exactly.
const maxOrdinaryUsers = 1 << 40

// ordinaryUsers is the number of ordinary user ids: (1-heavyFrac)*rows/rowsPerUser, at least 1.
func (c *config) ordinaryUsers() float64 {
	frac := c.heavyFrac
	if c.heavyUsers == 0 {
		frac = 0 // no heavy users, so no heavy rows
	}
	return max(1, math.Floor((1-frac)*float64(c.rows)/c.rowsPerUser))
}

// layout is what the generator derives from a valid config once, before the first row.
type layout struct {
	config
	heavyCut      uint64 // a row is heavy when a 53-bit draw is below heavyCut
	multilineCut  uint64 // a row's comment spans lines when a 53-bit draw is below multilineCut
	ordinaryFirst uint64 // smallest ordinary user id (heavyUsers+1)
	ordinaryCount uint64 // ordinary ids are ordinaryFirst .. ordinaryFirst+ordinaryCount-1
	terminator    string // "\n" or "\r\n"
}

func newLayout(c config) layout {
	heavyCut := uint64(c.heavyFrac * (1 << 53))
	if c.heavyUsers == 0 {
		heavyCut = 0 // no heavy users, so no heavy rows
	}
	l := layout{
		config:        c,
		heavyCut:      heavyCut,
		multilineCut:  uint64(c.multiline * (1 << 53)),
		ordinaryFirst: uint64(c.heavyUsers) + 1,
		ordinaryCount: uint64(c.ordinaryUsers()),
		terminator:    "\n",
	}
	if c.crlf {
		l.terminator = "\r\n"
	}
	if l.threads == 0 {
		l.threads = runtime.GOMAXPROCS(0)
	}
	return l
}

// missingID is a user id that no row has: one past the largest ordinary id.
func (l *layout) missingID() uint64 { return l.ordinaryFirst + l.ordinaryCount }
