#!/usr/bin/env python3
"""Differential test of csvidx against Python's csv module.

Python's ``csv`` module is an independent CSV parser. This script writes CSV
files with ``csv.writer`` in several dialects, records the exact bytes of every
row it writes, parses each whole file again with ``csv.reader`` and derives
from that parse what ``csvidx get`` must print for every key. It then builds
an index with csvidx and compares, byte for byte:

* ``get FILE KEY`` for every distinct key of every file, plus absent keys;
* ``get`` with several keys at once (repeats and absent keys included);
* ``get --count`` (``KEY<TAB>N`` per distinct key, in request order);
* ``get --header`` (the header row first);
* ``get --keys-file -`` and ``--keys-file PATH`` against the same keys as
  arguments;
* ``info --json`` counts (rows, keyed rows, short rows, blank lines);
* ``verify`` on each freshly built index;
* an unterminated last row (printed with a ``\\n`` added);
* a grown CSV (old rows still answered, warning on stderr) and a shrunk CSV
  (exit 2, one-line "stale" error);
* three indexes of each file in one build (the key column, a composite key of
  another column and the key, that other column alone), named in the key spec
  by quoted header names or numbers: ``get --by`` for every distinct composite
  value, as one CSV record of the file's dialect, by argument, by
  ``--keys-file -`` (blank lines between) and with ``--count``; lookups by the
  other column; ``get`` without ``--by`` answered by the default index
  (``FILE.csvidx``); ``info --json`` as an array;
  ``verify`` of each;
* each file, and every third file's compressed copies, served over HTTP
  (issue 41: ``scripts/rangeserver.py``, byte ranges and ETags) with its index
  next to it: every key at once and ``--count`` through its URL, which the
  default build hands to ``csvidx-remote``, and the remote index, fetched in
  part into a cache, byte for byte as the local file's (``check_remote``);
* each file compressed (issue 40) by ``bgzip``, ``pzstd -p 2`` and ``csvidx
  compress`` (zstd in 64 KiB frames, BGZF, and zstd in 1 KiB frames, so that
  rows straddle frames), each compressed file indexed and checked against the
  same expectations as the plain file, byte for byte: ``info --json`` (and
  its compression fields), ``verify``, every key at once and with
  ``--count``; on every other file, one compressed copy in turn gets the
  rest: ``get`` of every key alone, several keys, ``--count``, ``--header``,
  ``--keys-file``, and ``join`` with it as RIGHT refused (exit 2, one line)
  until that is done (see ``check_compressed_writers``). (Each run on a
  compressed file costs 2 to 3 times a plain one's: the sampling keeps the
  added time near 30 s.)

Only inputs on which SPEC.md and Python's csv module must agree are generated:
no bare ``\\r`` outside quotes, no record made of a lone empty unquoted field,
no blank line before the header. Every file is checked to round-trip through
``csv.reader`` before csvidx sees it.

Usage (from the repository root)::

    python3 scripts/oracle_test.py

The binary is built with ``go build`` into a temporary directory unless the
environment variable CSVIDX names one, and so is its codecs build,
``csvidx-codecs`` (``go build -tags codecs``), next to it, unless one is next
to $CSVIDX already; the default build runs it for the compressed files. The
compressors are ``bgzip`` (Debian's tabix) and ``pzstd`` (zstd): without one,
its files are left out with a note, or the test fails (exit 2) when
CSVIDX_REQUIRE_TOOLS is set, as test.sh sets it. ``ORACLE_KEEP=1`` keeps the temporary
directory for inspection. Exit status: 0 when every check passed, 1 on the
first mismatch (with a description on stderr), 2 when the test itself could not
run (for example when the build failed).
"""

import copy
import csv
import dataclasses
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import rangeserver  # scripts/rangeserver.py, next to this script

SEED = 20240611
BOM = b"\xef\xbb\xbf"

# Keys chosen to hit the corners of the dialect. Each appears in several rows
# of every file. None of them contains NUL (impossible in argv).
NASTY_KEYS = [
    "a,b",              # the delimiter of the default dialect
    "a;b",              # the delimiter of the ';' file
    "tab\there",        # the delimiter of the TSV file
    'x"y',              # a quote inside
    '"quoted"',         # looks like a quoted field
    '""',               # two quote characters
    "line1\nline2",     # a newline
    "crlf\r\ninside",   # a CRLF
    "lone\rcr",         # a lone CR (kept inside quotes by the writer fallback)
    "trailing\n",       # ends with a newline
    "Привет, мир",      # Cyrillic, with a comma
    "ключ",             # Cyrillic
    "中文键",            # CJK
    "🙂🎉",             # emoji (4-byte UTF-8)
    "",                 # the empty key
    "007",              # not the same key as "7"
    "7",
    " lead",            # leading space
    "trail ",           # trailing space
    "  both  ",
    "-neg",             # looks like a flag: passed after "--"
    "UPPER",            # no case folding: "upper" is absent
    "e\u0301",          # combining accent: not the same bytes as "é"
    "é",
]

# Key fields written by hand, verbatim: what Python's reader makes of them is the key.
RAW_KEY_FIELDS = [
    '"ab"cd',     # text after the closing quote is appended: abcd
    'ab"cd',      # an unquoted field is literal, quotes included
    ' "sp"',      # does not begin with a quote: literal, space and quotes kept
    '"x""y"z',    # escaped quote, then text after the closing quote: x"yz
    '"a,b"c',     # quoted delimiter, then more text: a,bc
]

# Keys that never appear in any file (checked to be absent by the oracle).
ABSENT_KEYS = ["nope", "upper", "07", "7 ", " 7", "a, b", "'quoted'", "🙂"]

# Values for the non-key columns: commas, quotes, newlines, unicode, empty.
OTHER_VALUES = [
    "plain", "", " ", "with, comma", 'say "hi"', '"', '""', "multi\nline",
    "crlf\r\nline", "semi;colon", "tab\tsep", "ünïcödé", "日本語", "🚀",
    "12.50", "-3", "trailing space ", "lone\rcr", "x" * 40, "a,\"b\"\n,c",
]


class Mismatch(Exception):
    """A disagreement between csvidx and the oracle (a test failure)."""


@dataclass
class Dialect:
    """How one generated file is written and indexed."""

    name: str
    lineterminator: str = "\n"
    quoting: int = csv.QUOTE_MINIMAL
    bom: bool = False
    delimiter: str = ","
    delimiter_arg: str = ""     # value of --delimiter; "" means not given
    header: bool = True
    key_col: int = 1
    key_by_name: bool = True
    rows: int = 300
    unterminated: bool = False  # strip the final terminator

    def describe(self):
        """A short human-readable description of the dialect."""
        q = {csv.QUOTE_MINIMAL: "minimal", csv.QUOTE_ALL: "all"}[self.quoting]
        lt = "CRLF" if self.lineterminator == "\r\n" else "LF"
        parts = [lt, "quote-" + q, "BOM" if self.bom else "no-BOM",
                 "delim=" + repr(self.delimiter),
                 "header" if self.header else "no-header",
                 "key=col%d by %s" % (self.key_col,
                                      "name" if self.key_by_name else "number")]
        if self.unterminated:
            parts.append("unterminated")
        return " ".join(parts)


@dataclass
class Chunk:
    """One piece of the file: the header, a data row, or a blank line."""

    kind: str            # "header", "row" or "blank"
    fields: list         # the fields written ([] for a blank line)
    text: str            # the exact text written, terminator included


@dataclass
class CsvFile:
    """A generated CSV file and everything the oracle knows about it."""

    dialect: Dialect
    path: str
    chunks: list
    header_bytes: bytes = b""
    rows: list = field(default_factory=list)   # (key or None, raw bytes)
    key_order: list = field(default_factory=list)  # distinct keys, first-seen
    records: list = field(default_factory=list)  # each data row's fields, as csv.reader read them
    forced_quotes: int = 0

    def expected(self, keys):
        """The bytes csvidx get must print for KEYS: matching rows in file order."""
        wanted = set(keys)
        return b"".join(raw for key, raw in self.rows
                        if key is not None and key in wanted)

    def count(self, key):
        """How many rows have KEY."""
        return sum(1 for k, _ in self.rows if k == key)


@dataclass
class Stats:
    """Counters for the summary line."""

    files: int = 0
    data_rows: int = 0
    key_queries: int = 0
    rows_compared: int = 0
    commands: int = 0
    forced_quotes: int = 0
    dialects: list = field(default_factory=list)
    compressed: dict = field(default_factory=dict)  # compressor name: files checked
    compressed_full: dict = field(default_factory=dict)  # the same, of every check
    straddling: int = 0  # rows across the end of a 1 KiB frame
    missing_tools: list = field(default_factory=list)
    remote: int = 0  # files checked through their URLs (check_remote)


STATS = Stats()


class Remote:
    """The server of the run's files over HTTP (scripts/rangeserver.py)."""

    server = None
    base = ""


REMOTE = Remote()


def dialects():
    """The files to generate: 8 combinations of terminator, quoting and BOM, plus
    a --no-header file, a ';' file and a TSV file."""
    out = []
    key_cols = [1, 0, 2, 1, 2, 1, 0, 3]
    sizes = [300, 250, 1800, 300, 250, 300, 250, 400]
    i = 0
    for lt in ("\n", "\r\n"):
        for quoting in (csv.QUOTE_MINIMAL, csv.QUOTE_ALL):
            for bom in (False, True):
                out.append(Dialect(
                    name="d%d" % i, lineterminator=lt, quoting=quoting, bom=bom,
                    key_col=key_cols[i], key_by_name=(i % 2 == 0),
                    rows=sizes[i], unterminated=(i % 3 == 1)))
                i += 1
    out.append(Dialect(name="noheader", header=False, key_col=2,
                       key_by_name=False, rows=300, unterminated=True))
    out.append(Dialect(name="semicolon", lineterminator="\r\n", bom=True,
                       delimiter=";", delimiter_arg=";", key_col=1,
                       key_by_name=True, rows=300))
    out.append(Dialect(name="tsv", delimiter="\t", delimiter_arg="\\t",
                       key_col=2, key_by_name=False, rows=300,
                       unterminated=True))
    return out


def header_fields(d):
    """Header names for dialect D: never numeric, some needing quotes."""
    names = ["id", "user,id", "ключ \"k\"", "note", "amount"]
    return names[:max(d.key_col + 2, 3)]


def write_row(fields, d, quoting=None):
    """The exact text csv.writer produces for FIELDS in dialect D."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf, delimiter=d.delimiter, lineterminator=d.lineterminator,
                   quoting=d.quoting if quoting is None else quoting)
    w.writerow(fields)
    return buf.getvalue()


def parse(text, d):
    """Parse TEXT with csv.reader in dialect D."""
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=d.delimiter))


def has_bare_cr(text):
    """True if csv.writer output TEXT has a \\r outside quotes that is not part of
    a \\r\\n terminator (toggling on every quote is exact for writer output, where
    a field containing a quote is always quoted and its quotes doubled)."""
    in_quotes = False
    for i, c in enumerate(text):
        if c == '"':
            in_quotes = not in_quotes
        elif c == "\r" and not in_quotes and text[i + 1:i + 2] != "\n":
            return True
    return False


def row_chunk(fields, d, csvfile):
    """A Chunk for FIELDS; quote every field if the default quoting would not
    round-trip (Python's writer leaves a lone \\r unquoted with an LF terminator,
    which Python then reads as a line break and csvidx as data)."""
    text = write_row(fields, d)
    if parse(text, d) != [fields] or has_bare_cr(text):
        text = write_row(fields, d, csv.QUOTE_ALL)
        csvfile.forced_quotes += 1
        if parse(text, d) != [fields]:
            raise RuntimeError("cannot write %r in dialect %s" % (fields, d.name))
    return Chunk("row", list(fields), text)


def raw_chunk(key_text, n, d, ncols):
    """A hand-written row whose key field is KEY_TEXT verbatim (quotes inside an
    unquoted field, text after a closing quote): corners csv.writer never
    produces but on which SPEC.md follows Python's csv module."""
    texts = ["h%d" % n] * ncols
    texts[d.key_col] = key_text
    text = d.delimiter.join(texts) + d.lineterminator
    records = parse(text, d)
    assert len(records) == 1 and len(records[0]) == ncols, (text, records)
    return Chunk("row", records[0], text)


def generate(d, rng, directory):
    """Write the CSV file for dialect D and return its CsvFile (not yet indexed)."""
    f = CsvFile(dialect=d, path=os.path.join(directory, d.name + ".csv"), chunks=[])
    ncols = len(header_fields(d))
    if d.header:
        f.chunks.append(row_chunk(header_fields(d), d, f))
        f.chunks[-1].kind = "header"
    # Every nasty key several times, the rest ordinary keys, shuffled.
    keys = []
    for k in NASTY_KEYS:
        keys += [k] * rng.randint(2, 5)
    for raw in RAW_KEY_FIELDS:
        keys += [(raw,)] * 2
    ordinary = ["u%d" % j for j in range(40)] + [str(1000 + j) for j in range(20)]
    while len(keys) < d.rows:
        keys.append(rng.choice(ordinary))
    rng.shuffle(keys)
    for n, key in enumerate(keys):
        r = rng.random()
        if n > 0 and r < 0.03:
            f.chunks.append(Chunk("blank", [], d.lineterminator))
        elif d.key_col > 0 and r < 0.06:
            # A short row: fewer fields than the key column; first field non-empty.
            short = ["short%d" % n] + [rng.choice(OTHER_VALUES)
                                       for _ in range(rng.randint(0, d.key_col - 1))]
            f.chunks.append(row_chunk(short, d, f))
        if isinstance(key, tuple):
            f.chunks.append(raw_chunk(key[0], n, d, ncols))
            continue
        fields = [rng.choice(OTHER_VALUES) for _ in range(ncols)]
        fields[0] = "r%d" % n
        fields[d.key_col] = key
        if rng.random() < 0.1:
            fields.append(rng.choice(OTHER_VALUES))  # a longer row is fine too
        f.chunks.append(row_chunk(fields, d, f))
    # The last chunk must be a keyed row so the unterminated case is observable.
    fields = ["last"] * ncols
    fields[d.key_col] = "u0"
    f.chunks.append(row_chunk(fields, d, f))
    if d.unterminated:
        last = f.chunks[-1]
        assert last.text.endswith(d.lineterminator)
        last.text = last.text[:-len(d.lineterminator)]
    data = (BOM if d.bom else b"") + "".join(c.text for c in f.chunks).encode("utf-8")
    with open(f.path, "wb") as out:
        out.write(data)
    return f


def derive_expectations(f):
    """Parse F's whole file independently with csv.reader, check it reads back
    exactly the chunks written, and fill in the raw bytes of every keyed row."""
    d = f.dialect
    with open(f.path, encoding="utf-8-sig", newline="") as inp:
        records = list(csv.reader(inp, delimiter=d.delimiter))
    written = [c.fields for c in f.chunks]
    if records != written:
        for i, (a, b) in enumerate(zip(records, written)):
            if a != b:
                raise RuntimeError("%s does not round-trip at record %d: read %r, wrote %r"
                                   % (f.path, i, a, b))
        raise RuntimeError("%s does not round-trip: %d records read, %d written"
                           % (f.path, len(records), len(written)))
    seen = set()
    for chunk, rec in zip(f.chunks, records):
        raw = chunk.text.encode("utf-8")
        if chunk.kind == "header":
            f.header_bytes = raw
            continue
        if chunk.kind == "blank":
            continue
        if not raw.endswith(d.lineterminator.encode()):
            raw += b"\n"  # csvidx adds \n after an unterminated last record
        key = rec[d.key_col] if len(rec) > d.key_col else None
        f.rows.append((key, raw))
        f.records.append(rec)
        if key is not None and key not in seen:
            seen.add(key)
            f.key_order.append(key)
    for k in ABSENT_KEYS:
        assert k not in seen, k


def run(binary, args, stdin=b""):
    """Run csvidx with ARGS (str or bytes) and return the CompletedProcess (bytes)."""
    argv = [binary] + [a.encode("utf-8") if isinstance(a, str) else a for a in args]
    STATS.commands += 1
    return subprocess.run(argv, input=stdin, capture_output=True, timeout=60)


def show(b, limit=400):
    """A readable excerpt of bytes B for error messages."""
    r = repr(b)
    return r if len(r) <= limit else r[:limit] + "... (%d bytes)" % len(b)


def fail(f, what, args, want_rc, got, want_out=None, note=""):
    """Raise Mismatch describing a failed csvidx command on file F."""
    msg = ["%s [%s]: %s" % (os.path.basename(f.path), f.dialect.describe(), what),
           "  command: csvidx " + " ".join(repr(a) for a in args),
           "  exit status: want %s, got %d" % (want_rc, got.returncode)]
    if want_out is not None:
        msg.append("  stdout want: " + show(want_out))
    msg.append("  stdout got:  " + show(got.stdout))
    msg.append("  stderr got:  " + show(got.stderr))
    if note:
        msg.append("  " + note)
    raise Mismatch("\n".join(msg))


def check(f, what, args, got, want_rc, want_out=None, stderr_empty=True):
    """Compare a command's exit status, stdout (bytes) and stderr with the oracle."""
    ok = got.returncode == want_rc
    if want_out is not None and got.stdout != want_out:
        ok = False
    if stderr_empty and got.stderr:
        ok = False
    if not ok:
        note = ""
        if want_out is not None and got.stdout != want_out:
            i = next((i for i, (a, b) in enumerate(zip(want_out, got.stdout)) if a != b),
                     min(len(want_out), len(got.stdout)))
            note = "first difference at stdout byte %d" % i
        fail(f, what, args, want_rc, got, want_out, note)


def build_index(binary, f):
    """Run csvidx build on F with its dialect's key and delimiter options."""
    d = f.dialect
    args = ["build", f.path, "--key", spec_of(d, [d.key_col])]  # a name with a comma is quoted
    if not d.header:
        args.append("--no-header")
    if d.delimiter_arg:
        args += ["--delimiter", d.delimiter_arg]
    got = run(binary, args)
    if got.returncode != 0:
        fail(f, "build failed", args, 0, got)


def check_verify_and_info(binary, f):
    """verify exits 0 on a fresh index; info --json counts agree with the oracle.
    Returns what info --json said."""
    args = ["verify", f.path]
    check(f, "verify of a fresh index", args, run(binary, args), 0, stderr_empty=False)
    args = ["info", f.path, "--json"]
    got = run(binary, args)
    check(f, "info --json", args, got, 0)
    info = json.loads(got.stdout)
    want = {
        "rows": len(f.rows),
        "records": sum(1 for k, _ in f.rows if k is not None),
        "short_rows": sum(1 for k, _ in f.rows if k is None),
        "blank_lines": sum(1 for c in f.chunks if c.kind == "blank"),
        "key_column": f.dialect.key_col,
        "header": f.dialect.header,
        "unterminated": f.dialect.unterminated,
    }
    diff = {k: (v, info.get(k)) for k, v in want.items() if info.get(k) != v}
    if diff:
        fail(f, "info --json disagrees (field: (want, got)): %r" % diff, args, 0, got)
    return info


def get_args(f, keys, *flags):
    """Arguments of a get command: flags first, then "--" and the keys."""
    return ["get", f.path, *flags, "--", *keys]


def check_single_keys(binary, f):
    """get FILE K for every distinct key of F and every absent key."""
    for key in f.key_order + ABSENT_KEYS:
        want = f.expected([key])
        args = get_args(f, [key])
        check(f, "get of one key %r" % key, args, run(binary, args),
              0 if want else 1, want)
        STATS.key_queries += 1
        STATS.rows_compared += f.count(key)


def check_multi_keys(binary, f, rng):
    """get with several keys at once, repeats and absent keys included."""
    requests = [f.key_order + ABSENT_KEYS, ABSENT_KEYS[:3]]
    for _ in range(6):
        ks = rng.sample(f.key_order, rng.randint(2, 8))
        ks += rng.sample(ks, 2) + [rng.choice(ABSENT_KEYS)]
        rng.shuffle(ks)
        requests.append(ks)
    for ks in requests:
        want = f.expected(ks)
        args = get_args(f, ks)
        check(f, "get of %d keys %r" % (len(ks), ks[:10]), args, run(binary, args),
              0 if want else 1, want)
        STATS.key_queries += len(ks)
        STATS.rows_compared += sum(f.count(k) for k in set(ks))


def check_count(binary, f, rng):
    """get --count: KEY<TAB>N per distinct requested key, in request order."""
    ks = f.key_order + ABSENT_KEYS + rng.sample(f.key_order, 5)
    rng.shuffle(ks)
    for request in (ks, ABSENT_KEYS[:2] + ABSENT_KEYS[:1]):
        distinct = list(dict.fromkeys(request))
        counts = [f.count(k) for k in distinct]
        want = b"".join(k.encode() + b"\t" + str(n).encode() + b"\n"
                        for k, n in zip(distinct, counts))
        args = get_args(f, request, "--count")
        check(f, "get --count", args, run(binary, args),
              0 if any(counts) else 1, want)
        STATS.key_queries += len(request)


def check_header(binary, f, rng):
    """get --header prints the header row (without BOM) before the rows."""
    if not f.dialect.header:
        return
    for ks in ([rng.choice(NASTY_KEYS)], rng.sample(f.key_order, 3)):
        want = f.header_bytes + f.expected(ks)
        args = get_args(f, ks, "--header")
        check(f, "get --header", args, run(binary, args), 0, want)
        STATS.key_queries += len(ks)


def check_keys_file(binary, f, rng, directory):
    """--keys-file - and --keys-file PATH give what the same keys as arguments give."""
    usable = [k for k in f.key_order if "\n" not in k and "\r" not in k]
    ks = rng.sample(usable, min(len(usable), 25)) + ["", "nope"] + usable[:3]
    rng.shuffle(ks)
    if ks[-1] == "":
        ks.append("u0")  # a trailing empty line would not be a key
    want = f.expected(ks)
    args = get_args(f, ks)
    by_args = run(binary, args)
    check(f, "get of the keys-file keys as arguments", args, by_args, 0, want)
    stdin = "\n".join(ks).encode() + b"\n"
    args = ["get", f.path, "--keys-file", "-"]
    check(f, "get --keys-file - (LF)", args, run(binary, args, stdin), 0, by_args.stdout)
    path = os.path.join(directory, f.dialect.name + ".keys")
    with open(path, "wb") as out:
        out.write("\r\n".join(ks).encode())  # CRLF, no final newline
    args = ["get", f.path, "--keys-file", path]
    check(f, "get --keys-file PATH (CRLF)", args, run(binary, args), 0, by_args.stdout)
    STATS.key_queries += 3 * len(ks)
    STATS.rows_compared += sum(f.count(k) for k in set(ks))


def check_grown_and_shrunk(binary, f, rng):
    """After appending rows, get answers from the index and warns; after
    truncating, get refuses with a one-line "stale" error and exit 2."""
    d = f.dialect
    size = os.path.getsize(f.path)
    key = rng.choice([k for k in NASTY_KEYS if k in f.key_order])
    if not d.unterminated:
        extra = "".join(write_row(["new"] * d.key_col + [k, "appended"], d, csv.QUOTE_ALL)
                        for k in (key, "brand-new", key))
        with open(f.path, "ab") as out:
            out.write(extra.encode())
        for ks, want_rc in (([key], 0), (["brand-new"], 1)):
            args = get_args(f, ks)
            got = run(binary, args)
            check(f, "get after appending rows", args, got, want_rc,
                  f.expected(ks), stderr_empty=False)
            if b"not indexed" not in got.stderr or got.stderr.count(b"\n") != 1:
                fail(f, "get after appending rows: want one warning line saying bytes "
                     "are 'not indexed'", args, want_rc, got)
    with open(f.path, "r+b") as out:
        out.truncate(size - 3)
    args = get_args(f, [key])
    got = run(binary, args)
    lines = got.stderr.splitlines()
    if (got.returncode != 2 or got.stdout or len(lines) != 1 or b"stale" not in lines[0]
            or not got.stderr.endswith(b"\n") or b"panic" in got.stderr):
        fail(f, "get after truncating the CSV by 3 bytes: want exit 2, no output, "
             "one stderr line containing 'stale'", args, 2, got, b"")


def spec_of(d, cols):
    """The key spec of COLS for dialect D: header names as one comma-separated
    CSV record (quoted where they need it) when the file has a header and the
    key goes by name, else numbers."""
    if d.header and d.key_by_name:
        buf = io.StringIO(newline="")
        csv.writer(buf, lineterminator="\n").writerow([header_fields(d)[c] for c in cols])
        return buf.getvalue()[:-1]
    return ",".join(str(c) for c in cols)


def value_of(d, fields, rng):
    """FIELDS as one CSV record of dialect D, without a terminator: the text
    of a composite key's value."""
    quoting = csv.QUOTE_ALL if rng.random() < 0.3 or any("\r" in x for x in fields) else csv.QUOTE_MINIMAL
    buf = io.StringIO(newline="")
    csv.writer(buf, delimiter=d.delimiter, lineterminator="\n", quoting=quoting).writerow(fields)
    return buf.getvalue()[:-1]


def check_several(binary, f, rng):
    """Three indexes of F in one build: the key column, the composite key
    (other, key) and the other column. Every distinct composite value is
    looked up by argument, by --keys-file - and counted, against the rows
    csv.reader read; then the two extra indexes are dropped."""
    d = f.dialect
    ncols = len(header_fields(d))
    other = ncols - 1 if ncols - 1 != d.key_col else 0
    comp = [other, d.key_col]
    specs = [spec_of(d, [d.key_col]), spec_of(d, comp), spec_of(d, [other])]
    args = ["build", f.path, "-q"]
    for sp in specs:
        args += ["--key", sp]
    if not d.header:
        args.append("--no-header")
    if d.delimiter_arg:
        args += ["--delimiter", d.delimiter_arg]
    check(f, "build of three indexes in one scan", args, run(binary, args), 0)
    for cols in (comp, [other]):
        p = f.path + ".by-" + "-".join(str(c) for c in cols) + ".csvidx"
        if not os.path.exists(p):
            fail(f, "build of three indexes: %s is missing" % p, args, 0, run(binary, ["info", f.path]))
    key = f.key_order[0]
    args = get_args(f, [key])  # FILE.csvidx, by the key column, stays the default
    check(f, "get without --by on a file of three indexes: the default index", args, run(binary, args), 0,
          f.expected([key]))

    def matching(values):
        wanted = set(values)
        return b"".join(raw for rec, (_, raw) in zip(f.records, f.rows)
                        if len(rec) > max(comp) and (rec[other], rec[d.key_col]) in wanted)

    pairs = list(dict.fromkeys((rec[other], rec[d.key_col]) for rec in f.records if len(rec) > max(comp)))
    absent = [("nope", "nope"), (pairs[0][1], pairs[0][0] + "x")]
    by = ["--by", specs[1]]
    for pair in pairs + absent:
        want = matching([pair])
        args = get_args(f, [value_of(d, list(pair), rng)], *by)
        check(f, "get --by %s of the value %r" % (specs[1], pair), args, run(binary, args), 0 if want else 1, want)
        STATS.key_queries += 1
        STATS.rows_compared += want.count(b"\n")
    stdin = b"".join(value_of(d, list(p), rng).encode() + b"\n" + (b"\n" if rng.random() < 0.2 else b"")
                     for p in pairs + absent)
    args = ["get", f.path, *by, "--keys-file", "-"]
    check(f, "get --by %s --keys-file - of every value" % specs[1], args, run(binary, args, stdin), 0,
          matching(pairs))
    sample = rng.sample(pairs, min(len(pairs), 12)) + absent[:1]
    values = [value_of(d, list(p), rng) for p in sample]
    def count(pair):
        return sum(1 for rec in f.records if len(rec) > max(comp) and (rec[other], rec[d.key_col]) == pair)

    want = b"".join(v.encode() + b"\t" + str(count(p)).encode() + b"\n" for v, p in zip(values, sample))
    args = get_args(f, values, *by, "--count")
    check(f, "get --by %s --count" % specs[1], args, run(binary, args), 0, want)
    for v in list(dict.fromkeys(rec[other] for rec in f.records if len(rec) > other))[:10]:
        want = b"".join(raw for rec, (_, raw) in zip(f.records, f.rows) if len(rec) > other and rec[other] == v)
        args = get_args(f, [v], "--by", specs[2])
        check(f, "get --by %s %r" % (specs[2], v), args, run(binary, args), 0, want)
    args = ["info", f.path, "--json"]
    got = run(binary, args)
    check(f, "info --json of three indexes", args, got, 0)
    infos = json.loads(got.stdout)
    # The first index, then the others by their columns.
    if [i.get("key_columns") or [i["key_column"]] for i in infos] != [[d.key_col]] + sorted([comp, [other]]):
        fail(f, "info --json of three indexes: key columns", args, 0, got)
    args = ["verify", f.path]
    check(f, "verify of three indexes", args, run(binary, args), 0, stderr_empty=False)
    for sp in specs[1:]:
        args = ["drop", f.path, "--by", sp]
        check(f, "drop --by", args, run(binary, args), 0, stderr_empty=False)


@dataclass
class Compressor:
    """A way of compressing a CSV that csvidx reads at random (issue 40)."""

    name: str
    backend: str    # what info --json calls the format
    suffix: str
    tool: str = ""  # the program it runs; "" for csvidx compress
    flags: list = field(default_factory=list)  # csvidx compress's flags


COMPRESSORS = [
    Compressor("bgzip", "bgzf", ".gz", tool="bgzip"),
    Compressor("pzstd -p 2", "zstd", ".zst", tool="pzstd"),
    Compressor("csvidx compress", "zstd", ".zst"),
    Compressor("csvidx compress --format bgzf", "bgzf", ".gz", flags=["--format", "bgzf"]),
    Compressor("csvidx compress --frame-kib 1", "zstd", ".zst", flags=["--frame-kib", "1"]),
    Compressor("gzip", "gzip", ".gz", tool="gzip"),
]

# Which compressor's copy of each file gets every check, every key alone
# included (about 100 runs, each 2 to 3 times a plain file's: the default
# build runs csvidx-codecs): on every other file, these in turn, the 1 KiB
# frames first. The other copies get the checks that cover every key in a
# few runs.
FULL_CHECKS = [COMPRESSORS[4], COMPRESSORS[0], COMPRESSORS[5], COMPRESSORS[1], COMPRESSORS[2], COMPRESSORS[3]]


def require_tools():
    """The compressors' programs, each checked to exist; a missing one leaves
    its files out with a note, or stops the test (exit 2) when
    CSVIDX_REQUIRE_TOOLS is set."""
    for tool in sorted({c.tool for c in COMPRESSORS if c.tool}):
        if shutil.which(tool):
            continue
        if os.environ.get("CSVIDX_REQUIRE_TOOLS"):
            print("oracle_test: %s is needed for the compressed files (test.sh installs it: "
                  "apt-get install tabix zstd)" % tool, file=sys.stderr)
            sys.exit(2)
        STATS.missing_tools.append(tool)


def compress(binary, f, c):
    """Compress F's file with C into a new file and return a CsvFile of it:
    the same expectations at another path."""
    out = "%s.%d%s" % (f.path, COMPRESSORS.index(c), c.suffix)
    if c.tool == "bgzip":
        argv = ["bgzip", "-c", f.path]
    elif c.tool == "pzstd":
        argv = ["pzstd", "-q", "-p", "2", "-c", f.path]
    elif c.tool == "gzip":
        argv = ["gzip", "-c", f.path]
    else:
        argv = [binary, "compress", f.path, "-o", out, *c.flags]
    STATS.commands += 1
    if c.tool:
        with open(out, "wb") as w:
            got = subprocess.run(argv, stdout=w, stderr=subprocess.PIPE, timeout=60)
    else:
        got = subprocess.run(argv, capture_output=True, timeout=60)
    if got.returncode != 0:
        fail(f, "compressing with %s failed" % c.name, argv[1:], 0, got)
    return dataclasses.replace(f, path=out)


def straddling(f, frame):
    """How many rows of F cross the end of a frame of FRAME plain bytes
    (csvidx compress cuts a frame at every FRAME bytes)."""
    off = len(BOM) if f.dialect.bom else 0
    n = 0
    for chunk in f.chunks:
        end = off + len(chunk.text.encode("utf-8"))
        if chunk.kind == "row" and off // frame != (end - 1) // frame:
            n += 1
        off = end
    return n


def check_every_key_at_once(binary, f):
    """get of every key of F and the absent keys in one run, and --count of
    them: every row of F compared in two runs."""
    ks = f.key_order + ABSENT_KEYS
    want = f.expected(ks)
    args = get_args(f, ks)
    check(f, "get of every key at once", args, run(binary, args), 0, want)
    want = b"".join(k.encode() + b"\t" + str(f.count(k)).encode() + b"\n" for k in ks)
    args = get_args(f, ks, "--count")
    check(f, "get --count of every key", args, run(binary, args), 0, want)
    STATS.key_queries += 2 * len(ks)
    STATS.rows_compared += len(f.rows)


def check_remote(binary, f, tmp):
    """F served over HTTP (scripts/rangeserver.py) with its index next to it:
    every key at once and --count through csvidx's remote build (which the
    default build runs for a URL) and the remote index, as the local file's,
    byte for byte. The index's pieces are cached under TMP/cache."""
    rf = copy.copy(f)
    rf.path = REMOTE.base + "/" + os.path.relpath(f.path, tmp).replace(os.sep, "/")
    check_every_key_at_once(binary, rf)
    STATS.remote += 1


def check_compressed(binary, f, n, tmp):
    """F, the Nth file, compressed by each compressor: the index of each
    compressed file answers as the plain file's does, byte for byte: info
    --json (and its compression fields), verify, every key at once and
    --count; on every other file, one copy in turn (FULL_CHECKS) gets every
    check of the plain file but those that change it: every key alone,
    several keys, --header, --keys-file; a join with it as RIGHT, and an
    update and a compact after frames appended (check_compressed_writers)."""
    rng = random.Random(SEED * 1000 + n)  # the plain checks' sequence is kept
    full = FULL_CHECKS[n // 2 % len(FULL_CHECKS)] if n % 2 == 0 else None
    for c in COMPRESSORS:
        if c.tool in STATS.missing_tools:
            continue
        cf = compress(binary, f, c)
        STATS.compressed[c.name] = STATS.compressed.get(c.name, 0) + 1
        if c.flags == ["--frame-kib", "1"]:
            across = straddling(f, 1024)
            if across == 0:
                raise RuntimeError("%s: no row straddles 1 KiB frames" % f.path)
            STATS.straddling += across
        build_index(binary, cf)
        info = check_verify_and_info(binary, cf)
        want = {"compression": c.backend, "file_bytes": os.path.getsize(cf.path),
                "csv_bytes": os.path.getsize(f.path), "state": "fresh"}
        diff = {k: (v, info.get(k)) for k, v in want.items() if info.get(k) != v}
        if diff:
            args = ["info", cf.path, "--json"]
            fail(cf, "info --json of a file compressed by %s (field: (want, got)): %r" % (c.name, diff),
                 args, 0, run(binary, args))
        check_every_key_at_once(binary, cf)
        if n % 3 == 0:
            check_remote(binary, cf, tmp)
        if c is not full:
            continue
        STATS.compressed_full[c.name] = STATS.compressed_full.get(c.name, 0) + 1
        check_single_keys(binary, cf)
        check_multi_keys(binary, cf, rng)
        check_count(binary, cf, rng)
        check_header(binary, cf, rng)
        check_keys_file(binary, cf, rng, tmp)
        check_compressed_writers(binary, f, cf, c)


def check_compressed_writers(binary, f, cf, c):
    """What csvidx does to a compressed file besides reading it, against the
    plain file as csvidx answers for it (the local build, which the checks
    above compare with Python's csv): join LEFT with CF as RIGHT prints what
    the join with F as RIGHT prints; and rows appended as a compressed file
    of their own (F's first rows again, after its last row, which they may
    complete when it is unterminated) are indexed by update into a tail, then
    compact: get of every key at once and --count answer as a build of the
    grown plain file does, and verify passes."""
    d = f.dialect
    args = ["join", f.path, cf.path, "--key", spec_of(d, [d.key_col])]
    if not d.header:
        args.append("--no-header")
    if d.delimiter_arg:
        args += ["--delimiter", d.delimiter_arg]
    plain = run(binary, args[:2] + [f.path] + args[3:])
    check(cf, "join with a compressed RIGHT: what the plain RIGHT gives", args, run(binary, args),
          plain.returncode, plain.stdout, stderr_empty=False)

    extra = b"".join(raw for _, raw in f.rows[:40])
    if not extra:
        return
    with open(f.path, "rb") as r:
        data = r.read()
    grown = dataclasses.replace(f, path=f.path + ".grown" + os.path.splitext(f.path)[1])
    more = dataclasses.replace(f, path=f.path + ".more" + os.path.splitext(f.path)[1])
    for path, b in ((grown.path, data + extra), (more.path, extra)):
        with open(path, "wb") as w:
            w.write(b)
    build_index(binary, grown)
    appended = compress(binary, more, c)
    with open(cf.path, "ab") as w, open(appended.path, "rb") as r:
        w.write(r.read())
    ks = f.key_order + ABSENT_KEYS
    for step in ("update", "compact"):
        args = [step, cf.path]
        check(cf, step + " after frames appended", args, run(binary, args), 0, stderr_empty=False)
        for flags in ([], ["--count"]):
            want = run(binary, get_args(grown, ks, *flags))
            args = get_args(cf, ks, *flags)
            check(cf, "get %s of every key after %s: what the grown plain file gives" % (" ".join(flags), step),
                  args, run(binary, args), 0, want.stdout)
        args = ["verify", cf.path]
        check(cf, "verify after " + step, args, run(binary, args), 0, stderr_empty=False)
    STATS.key_queries += 4 * len(ks)


def build_binary(tmp):
    """Return the csvidx binary: $CSVIDX, or one built with go build into TMP;
    and make sure its codecs and remote builds, csvidx-codecs and
    csvidx-remote, are next to it (built into TMP, which goes first on PATH,
    when $CSVIDX has none beside it)."""
    binary = os.environ.get("CSVIDX") or os.path.join(tmp, "csvidx")
    builds = [] if os.environ.get("CSVIDX") else [(binary, "")]
    for name, tags in (("csvidx-codecs", "codecs"), ("csvidx-remote", "remote")):
        if not os.path.exists(os.path.join(os.path.dirname(binary), name)):
            builds.append((os.path.join(tmp, name), tags))
            if tmp not in os.environ.get("PATH", "").split(os.pathsep):
                os.environ["PATH"] = tmp + os.pathsep + os.environ.get("PATH", "")
    for out, tags in builds:
        proc = subprocess.run(["go", "build", "-tags", tags, "-o", out, "./cmd/csvidx"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print("oracle_test: go build -tags %r failed:\n%s" % (tags, proc.stderr), file=sys.stderr)
            sys.exit(2)
    return binary


def test_file(binary, d, rng, tmp, n):
    """Generate, index and check one file, the Nth, and its compressed copies."""
    f = generate(d, rng, tmp)
    derive_expectations(f)
    STATS.files += 1
    STATS.data_rows += len(f.rows)
    STATS.forced_quotes += f.forced_quotes
    STATS.dialects.append(d.describe())
    build_index(binary, f)
    check_verify_and_info(binary, f)
    check_single_keys(binary, f)
    check_multi_keys(binary, f, rng)
    check_count(binary, f, rng)
    check_header(binary, f, rng)
    check_keys_file(binary, f, rng, tmp)
    check_several(binary, f, rng)
    check_remote(binary, f, tmp)
    check_compressed(binary, f, n, tmp)
    check_grown_and_shrunk(binary, f, rng)


def main():
    """Run every check; print a summary; exit 0, or 1 on the first mismatch."""
    start = time.monotonic()
    rng = random.Random(SEED)
    tmp = tempfile.mkdtemp(prefix="csvidx-oracle-")
    try:
        binary = build_binary(tmp)
        require_tools()
        REMOTE.server, REMOTE.base = rangeserver.serve(tmp)
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        for n, d in enumerate(dialects()):
            test_file(binary, d, rng, tmp, n)
    except Mismatch as e:
        print("oracle_test: FAIL: csvidx disagrees with Python's csv module\n" + str(e),
              file=sys.stderr)
        if os.environ.get("ORACLE_KEEP"):
            print("oracle_test: files kept in " + tmp, file=sys.stderr)
        return 1
    finally:
        if not os.environ.get("ORACLE_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print("oracle_test: OK: %d files in %d dialects, %d data rows; %d key lookups, "
          "%d rows compared byte for byte; %d csvidx runs; %d rows needed forced quoting; "
          "%.1fs" % (STATS.files, len(set(STATS.dialects)), STATS.data_rows,
                     STATS.key_queries, STATS.rows_compared, STATS.commands,
                     STATS.forced_quotes, time.monotonic() - start))
    for desc in STATS.dialects:
        print("  " + desc)
    print("  compressed copies, each checked as its plain file (of every check): " +
          ", ".join("%s %d (%d)" % (k, v, STATS.compressed_full.get(k, 0)) for k, v in STATS.compressed.items()) +
          "; %d rows straddle 1 KiB frames" % STATS.straddling)
    print("  through their URLs, served over HTTP with their indexes (csvidx-remote, the remote index): %d files" % STATS.remote)
    if STATS.missing_tools:
        print("  NOT CHECKED: the files of %s, not installed" % ", ".join(STATS.missing_tools))
    return 0


if __name__ == "__main__":
    sys.exit(main())
