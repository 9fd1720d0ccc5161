//go:build !unix

package tmpfile

// noFollow is zero here: O_EXCL alone refuses an existing name, links included.
const noFollow = 0
