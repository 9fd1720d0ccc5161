package scan

import "testing"

// FuzzScanner holds the scanner to the reference parser on arbitrary input,
// with the delimiter and key column taken from the fuzzer too, and the
// guessing helpers to the byte-at-a-time labelling on inputs of up to 512
// bytes (see TestEndReadings). The seed corpus (the table cases, plus
// testdata/fuzz/FuzzScanner) runs in every go test.
func FuzzScanner(f *testing.F) {
	for _, tc := range scanCases {
		input, _ := splitMarks(tc.Input)
		f.Add([]byte(input), tc.Delim, uint8(tc.Key))
	}
	f.Add([]byte("a,\"b\"\"c\",\"d\"e\"f\r\n\r\n\"g\nh\"\r"), byte(','), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, delim byte, key uint8) {
		if delim == 0 {
			delim = ','
		}
		if CheckDelimiter(delim) != nil {
			return
		}
		checkAgainstRef(t, data, delim, int(key%8))
		checkChunked(t, data, delim, int(key%8), 1+int(key>>3))
		if len(data) <= 512 { // it reads from every byte on: quadratic
			checkReadings(t, data, delim)
		}
	})
}
