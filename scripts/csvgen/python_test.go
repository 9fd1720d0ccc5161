package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// pythonRoundTrip reads a CSV with Python's csv module, checks the row count and that every
// record has 6 fields, writes the records back with csv.writer (QUOTE_MINIMAL) and asserts
// that the bytes are the original ones: Python reads exactly our records, and we quote exactly
// as Python does.
const pythonRoundTrip = `
import csv, io, sys
path, term, rows, unterminated = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
term = {"lf": "\n", "crlf": "\r\n"}[term]
data = open(path, "rb").read()
bom = data.startswith(b"\xef\xbb\xbf")
text = data[3 if bom else 0:].decode("utf-8")
recs = list(csv.reader(io.StringIO(text, newline=""), strict=True))
assert len(recs) == rows + 1, f"{len(recs)} records, want {rows + 1}"
for i, r in enumerate(recs):
    assert len(r) == 6, f"record {i} has {len(r)} fields: {r!r}"
out = io.StringIO(newline="")
csv.writer(out, lineterminator=term).writerows(recs)
again = out.getvalue()
if unterminated:
    again = again[: -len(term)]
again = (b"\xef\xbb\xbf" if bom else b"") + again.encode("utf-8")
if again != data:
    n = next(i for i in range(min(len(again), len(data)) + 1) if again[i : i + 1] != data[i : i + 1])
    sys.exit(f"csv.writer differs at byte {n}: {again[n - 40 : n + 40]!r} vs {data[n - 40 : n + 40]!r}")
`

func TestPythonCSVReadsAndRewritesTheSameBytes(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		edit func(*config)
	}{
		{"Plain", func(c *config) { c.rows = 20_000; c.multiline = 0.02 }},
		{"CRLFBOMUnterminated", func(c *config) {
			c.rows = 20_000
			c.multiline = 0.02
			c.crlf, c.bom, c.unterminated = true, true, true
		}},
		{"Empty", func(c *config) { c.rows = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaultConfig()
			tc.edit(&c)
			path := filepath.Join(dir, tc.name+".csv")
			if err := os.WriteFile(path, gen(t, tc.edit), 0o644); err != nil {
				t.Fatal(err)
			}
			term, unterminated := "lf", "0"
			if c.crlf {
				term = "crlf"
			}
			if c.unterminated {
				unterminated = "1"
			}
			cmd := exec.Command(python, "-c", pythonRoundTrip, path, term, strconv.FormatInt(c.rows, 10), unterminated)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("python3: %v\n%s", err, out)
			}
		})
	}
}
