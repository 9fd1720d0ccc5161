// Package scan finds the records of a CSV file held in memory (usually a
// mapping of the whole file) and decodes the one field a record is indexed by.
// A [Stream] reads the records of a CSV from a reader in windows, in
// constant memory, for an input that cannot be mapped (a pipe, or later a
// compressed file read in order).
//
// The scanner is built for speed: it never allocates per record, it finds
// structure by searching eight bytes at a time for the few bytes that matter
// (delimiter, quote, newline) instead of stepping a state machine byte by
// byte, and it decodes only the key field; every other field is skipped.
//
// # Dialect
//
// The dialect is the one of RFC 4180 as Python's csv module reads it, with
// a configurable one-byte delimiter and these precise rules:
//
//   - A record ends at a newline (\n) outside quotes. A carriage return
//     directly before that newline belongs to the terminator. Inside quotes,
//     \n and \r\n are data. A lone \r is data everywhere.
//   - A field that begins with a double quote is quoted: its value runs to
//     the closing quote, with "" standing for one ". Characters after the
//     closing quote, up to the delimiter or terminator, are appended to the
//     value as they are (quotes among them are literal).
//   - A field that does not begin with a quote is taken literally, quotes
//     included.
//   - An unterminated quoted field runs to the end of the data.
//   - A UTF-8 byte order mark at the very start is not part of the first
//     field.
//   - A blank line (only a terminator) is not a record.
//   - A last record without a terminator is a record; [Scanner.Terminated]
//     reports that it may be incomplete.
//
// For example, with the delimiter ',' and key column 1:
//
//	input                  key of the record
//	a,b,c\n                b
//	a,"b,c"\n              b,c
//	a,"say ""hi"""\n       say "hi"
//	a,"x"y z\n             xy z
//	a,b"c\n                b"c
//	a,"two\nlines"\n       two\nlines (one record)
//	a,b\r\n                b
//	a,b\rc\n               b\rc
//	a\n                    none: the record is too short to have column 1
//	\n                     none: a blank line is not a record
//	a,"open\n...EOF        open\n... (the quote never closes)
//
// Column numbers are 0-based. The empty string is a valid key: the record
// "a,\n" has the key "" in column 1, and "a\n" has no key in column 1.
package scan
