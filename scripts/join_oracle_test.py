#!/usr/bin/env python3
"""Differential test of ``csvidx join`` against a reference join written here
with Python's csv module (a dict of lists over RIGHT).

Files are written with ``csv.writer`` (their rows' exact bytes recorded) and
read back with ``csv.reader``; the reference joins the parsed rows. For every
mode (inner, left, semi, anti, right, full, right-semi, right-anti) and every
case below, csvidx's output is parsed with ``csv.reader`` and compared, row
for row and field for field, with the reference; ``--semi`` and ``--anti``
rows, which csvidx prints verbatim, are compared byte for byte with the rows
as written, so are ``--right-semi`` and ``--right-anti``'s output with
RIGHT's header and rows as written when both files share a delimiter, and so
are whole rows when both files share a dialect (fields are copied as
written). The exit status (0 when a data row was printed, 1 when none) is
checked too. Each case runs again with ``--coalesce`` (the key printed once)
in the modes that print both sides, against a reference of its own, byte for
byte for ``--inner`` rows when both files share a delimiter.

Cases: nasty keys (quotes, the delimiter, newlines, a carriage return,
unicode, the empty key, ``007`` and ``7``), short rows, an absent key, a heavy
key, LEFT from a file and from standard input, CRLF and a byte order mark,
another delimiter on each side (RIGHT's rows re-encoded), a headerless LEFT,
composite keys, ``--nulls``, ``-l``/``-r`` prefixes, a RIGHT with a tail
(rows appended and indexed by ``csvidx update``), a RIGHT keyed by its last
column with short rows (which have no key) between keyed ones, last records of
either side that end inside a quote that never closes, and a RIGHT whose last
row, unterminated when indexed, was completed by an append. RIGHT is also
served over HTTP (scripts/rangeserver.py) with its indexes and joined by
its URL, in every dialect and with a tail (csvidx's remote build, the
remote index). Last, a LEFT of a million
rows from a pipe, whose anonymous RSS (polled) must stay under 64 MiB.

Usage (from the repository root)::

    python3 scripts/join_oracle_test.py

The binary is built with ``go build`` into a temporary directory unless the
environment variable CSVIDX names one. Exit status: 0 when every check
passed, 1 on the first mismatch, 2 when the test could not run.
"""

import copy
import csv
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile

import rangeserver  # scripts/rangeserver.py, next to this script

SEED = 20261204
BOM = b"\xef\xbb\xbf"
NASTY = ["1", "007", "7", "", 'a"b', "a,b", "a;b", "x\ny", "c\r\nd", "ü", " sp ", "tab\tx", '"q"']
MODES = ["inner", "left", "semi", "anti", "right", "full", "right-semi", "right-anti"]


class Fail(Exception):
    pass


class CSVFile:
    """A CSV written with csv.writer: its header (or None) and rows, as
    fields and as the bytes written."""

    def __init__(self, path, header, rows, delim=",", crlf=False, bom=False):
        self.path, self.header, self.delim = path, header, delim
        term = "\r\n" if crlf else "\n"
        self.rows = []  # (fields, raw bytes)
        out = bytearray(BOM if bom else b"")
        self.header_raw = None
        if header is not None:
            self.header_raw = self._encode(header, term)
            out += self.header_raw
        for r in rows:
            raw = self._encode(r, term)
            self.rows.append((r, raw))
            out += raw
        with open(path, "wb") as f:
            f.write(out)
        self.term = term
        self._check()

    def _encode(self, fields, term):
        s = io.StringIO()
        csv.writer(s, delimiter=self.delim, lineterminator=term).writerow(fields)
        return s.getvalue().encode()

    def end_unterminated(self, fields, raw, unclosed):
        """Ends the file with raw, an unterminated last record read as
        fields. A join prints it with a newline added, re-encoded as
        csv.writer writes fields when a quoted field of it never closes
        (else that field would take the next rows)."""
        with open(self.path, "ab") as f:
            f.write(raw)
        self.rows.append((fields, self._encode(fields, "\n") if unclosed else raw + b"\n"))
        self._check()

    def append(self, rows):
        with open(self.path, "ab") as f:
            for r in rows:
                raw = self._encode(r, self.term)
                self.rows.append((r, raw))
                f.write(raw)
        self._check()

    def _check(self):
        """The file parses back to what was written."""
        with open(self.path, encoding="utf-8-sig", newline="") as f:
            got = [r for r in csv.reader(f, delimiter=self.delim) if r]
        want = ([self.header] if self.header is not None else []) + [r for r, _ in self.rows]
        if got != want:
            raise Fail(f"{self.path} does not read back as written")


def reference(mode, left, right, lcols, rcols, nulls, pl="", pr=""):
    """The rows a join must print, as field lists, and for semi and anti the
    bytes of LEFT's rows, for right-semi and right-anti RIGHT's."""
    index = {}
    for i, (r, _) in enumerate(right.rows):
        if len(r) > max(rcols):
            index.setdefault(tuple(r[c] for c in rcols), []).append(i)
    nleft = len(left.header) if left.header is not None else len(left.rows[0][0])
    nright = len(right.header) if right.header is not None else len(right.rows[0][0])
    out, raw, matched = [], [], set()
    if left.header is not None:  # (else --no-header: no header is printed)
        if mode in ("semi", "anti"):
            out.append(left.header)
        elif mode in ("right-semi", "right-anti"):
            if right.header is not None:
                out.append(right.header)
        else:
            rnames = right.header if right.header is not None else [str(i) for i in range(nright)]
            out.append([pl + n for n in left.header] + [pr + n for n in rnames])
    for fields, rawrow in left.rows:
        key = tuple(fields[c] for c in lcols) if len(fields) > max(lcols) else None
        probe = key is not None and (nulls or any(k != "" for k in key))
        found = index.get(key, []) if probe else []
        if mode in ("right-semi", "right-anti"):
            matched.update(found)
            continue
        if mode in ("semi", "anti"):
            if bool(found) == (mode == "semi"):
                out.append(fields)
                raw.append(rawrow)
            continue
        for i in found:
            matched.add(i)
            out.append(fields + right.rows[i][0])
        if not found and mode in ("left", "full"):
            out.append(fields + [""] * nright)
    if mode in ("right", "full"):
        for i, (r, _) in enumerate(right.rows):
            if i not in matched:
                out.append([""] * nleft + r)
    if mode in ("right-semi", "right-anti"):
        for i, (r, rawrow) in enumerate(right.rows):
            if (i in matched) == (mode == "right-semi"):
                out.append(r)
                raw.append(rawrow)
    return out, raw


def reference_coalesced(mode, left, right, lcols, rcols, nulls, pl="", pr=""):
    """The rows a join that prints the key once (--coalesce) must print, as
    field lists: RIGHT's key columns left out; an unmatched RIGHT row's key
    in LEFT's key columns (those of its key columns it has)."""
    index = {}
    for i, (r, _) in enumerate(right.rows):
        if len(r) > max(rcols):
            index.setdefault(tuple(r[c] for c in rcols), []).append(i)
    nleft = len(left.header) if left.header is not None else len(left.rows[0][0])
    nright = len(right.header) if right.header is not None else len(right.rows[0][0])

    def cut(r):
        return [f for c, f in enumerate(r) if c not in rcols]

    out, matched = [], set()
    if left.header is not None:
        rnames = right.header if right.header is not None else [str(i) for i in range(nright)]
        out.append([pl + n for n in left.header] + [pr + n for n in cut(rnames)])
    for fields, _ in left.rows:
        key = tuple(fields[c] for c in lcols) if len(fields) > max(lcols) else None
        probe = key is not None and (nulls or any(k != "" for k in key))
        found = index.get(key, []) if probe else []
        for i in found:
            matched.add(i)
            out.append(fields + cut(right.rows[i][0]))
        if not found and mode in ("left", "full"):
            out.append(fields + [""] * len(cut([""] * nright)))
    if mode in ("right", "full"):
        for i, (r, _) in enumerate(right.rows):
            if i not in matched:
                lf = [""] * nleft
                for p, c in enumerate(rcols):
                    if c < len(r):
                        lf[lcols[p]] = r[c]
                out.append(lf + cut(r))
    return out


def check_coalesced(csvidx, name, left, right, lcols, rcols, args, nulls=False, pl="", pr="", stdin=False):
    """--coalesce in the modes that print both sides: the output parses to
    reference_coalesced's; with both files in one delimiter and no prefix,
    each --inner row is LEFT's row as written, then RIGHT's fields as
    written but its key's."""
    for mode in ("inner", "left", "right", "full"):
        p = run_join(csvidx, mode, left, right, args + ["--coalesce"], stdin)
        want = reference_coalesced(mode, left, right, lcols, rcols, nulls, pl, pr)
        got = list(csv.reader(io.StringIO(p.stdout.decode(), newline=""), delimiter=left.delim))
        if got != want:
            for i, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    raise Fail(f"{name}, --{mode} --coalesce: row {i}: {g!r}, want {w!r}")
            raise Fail(f"{name}, --{mode} --coalesce: {len(got)} rows, want {len(want)}")
        data_rows = len(want) - (1 if left.header is not None else 0)
        if p.returncode != (0 if data_rows else 1):
            raise Fail(f"{name}, --{mode} --coalesce: exit {p.returncode} for {data_rows} rows")
        if mode == "inner" and left.delim == right.delim and not pl and not pr:
            d = left.delim.encode()
            lines = set()
            for _, lraw in left.rows:
                for r, _ in right.rows:
                    rest = [encode_field(f, right.delim) for c, f in enumerate(r) if c not in rcols]
                    lines.add(strip(lraw) + b"".join(d + f for f in rest) + b"\n")
            cut = split_rows(p.stdout, got, left.delim)
            for line in cut[1:] if left.header is not None else cut:
                if line not in lines:
                    raise Fail(f"{name}, --inner --coalesce: {line!r} is not LEFT's row and RIGHT's as written")
    print(f"ok: {name}, --coalesce")


def encode_field(f, delim):
    """One field as csv.writer writes it in a row of several."""
    if f == "":
        return b""
    s = io.StringIO()
    csv.writer(s, delimiter=delim, lineterminator="\n").writerow([f])
    return s.getvalue()[:-1].encode()


def run_join(csvidx, mode, left, right, args, stdin=False):
    cmd = [csvidx, "join", "--" + mode, "-" if stdin else left.path, right.path] + args
    data = open(left.path, "rb").read() if stdin else None
    p = subprocess.run(cmd, input=data, capture_output=True)
    if p.returncode not in (0, 1):
        raise Fail(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p


def check(csvidx, name, left, right, lcols, rcols, args, nulls=False, pl="", pr="", stdin=False):
    for mode in MODES:
        p = run_join(csvidx, mode, left, right, args, stdin)
        want, raw = reference(mode, left, right, lcols, rcols, nulls, pl, pr)
        text = p.stdout.decode()
        got = list(csv.reader(io.StringIO(text, newline=""), delimiter=left.delim))
        if got != want:
            for i, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    raise Fail(f"{name}, --{mode}: row {i}: {g!r}, want {w!r}")
            raise Fail(f"{name}, --{mode}: {len(got)} rows, want {len(want)}")
        headed = left.header is not None and (right.header is not None or mode not in ("right-semi", "right-anti"))
        data_rows = len(want) - (1 if headed else 0)
        if p.returncode != (0 if data_rows else 1):
            raise Fail(f"{name}, --{mode}: exit {p.returncode} for {data_rows} rows")
        if not p.stdout.endswith(b"\n") and p.stdout:
            raise Fail(f"{name}, --{mode}: the output does not end with a newline")
        if mode in ("semi", "anti"):
            body = p.stdout
            if left.header is not None:
                body = body[len(left.header_raw):]
                if not p.stdout.startswith(left.header_raw):
                    raise Fail(f"{name}, --{mode}: the header is not LEFT's, verbatim")
            if body != b"".join(raw):
                raise Fail(f"{name}, --{mode}: the rows are not LEFT's, verbatim")
        elif mode in ("right-semi", "right-anti") and left.delim == right.delim:
            # RIGHT's header and rows as written; re-encoded in another delimiter.
            head = right.header_raw if headed else b""
            if p.stdout != head + b"".join(raw):
                raise Fail(f"{name}, --{mode}: the header and rows are not RIGHT's, verbatim")
        elif mode == "inner" and left.delim == right.delim and not pl and not pr:
            # Fields copied as written: each row is LEFT's bytes, the delimiter, RIGHT's.
            lines = set()
            for fields, rawrow in left.rows:
                for r, rraw in right.rows:
                    lines.add(strip(rawrow) + left.delim.encode() + strip(rraw) + b"\n")
            cut = split_rows(p.stdout, got, left.delim)
            for line in cut[1:] if left.header is not None else cut:
                if line not in lines:
                    raise Fail(f"{name}, --inner: {line!r} is not LEFT's row and RIGHT's as written")
    print(f"ok: {name}")
    check_coalesced(csvidx, name, left, right, lcols, rcols, args, nulls, pl, pr, stdin)


def strip(raw):
    """raw without its terminator."""
    if raw.endswith(b"\r\n"):
        return raw[:-2]
    return raw[:-1] if raw.endswith(b"\n") else raw


def split_rows(body, rows, delim):
    """Cut body, csvidx's output rows, into each row's bytes, by encoding
    lengths: every row ends with a newline outside quotes."""
    out, i = [], 0
    for _ in rows:
        j, quoted = i, False
        while True:
            c = body[j:j + 1]
            if not c:
                raise Fail("the output ends inside a row")
            if c == b'"':
                quoted = not quoted
            elif c == b"\n" and not quoted:
                break
            j += 1
        out.append(body[i:j + 1])
        i = j + 1
    return out


def build(csvidx, path, *keys, extra=()):
    args = [csvidx, "build", path, "-q"] + [a for k in keys for a in ("--key", k)] + list(extra)
    p = subprocess.run(args, capture_output=True)
    if p.returncode != 0:
        raise Fail(f"{' '.join(args)}: {p.stderr.decode(errors='replace')}")


def main():
    rng = random.Random(SEED)
    tmp = tempfile.mkdtemp(prefix="csvidx-join-oracle-")
    try:
        csvidx = os.environ.get("CSVIDX")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        if not csvidx:
            csvidx = os.path.join(tmp, "csvidx")
            if subprocess.run(["go", "build", "-o", csvidx, "./cmd/csvidx"], cwd=root).returncode != 0:
                return 2
        if not os.path.exists(os.path.join(os.path.dirname(csvidx), "csvidx-remote")):
            # csvidx runs its remote build for a RIGHT at a URL: next to it, or on PATH.
            if subprocess.run(["go", "build", "-tags", "remote", "-o", os.path.join(tmp, "csvidx-remote"), "./cmd/csvidx"],
                              cwd=root).returncode != 0:
                return 2
            os.environ["PATH"] = tmp + os.pathsep + os.environ.get("PATH", "")
        REMOTE.server, REMOTE.base = rangeserver.serve(tmp)
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        run_cases(csvidx, tmp, rng)
    except Fail as e:
        print(f"join_oracle_test: FAIL: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("join_oracle_test: every check passed")
    return 0


class Remote:
    """The server of the run's files over HTTP (scripts/rangeserver.py)."""

    server = None
    base = ""


REMOTE = Remote()


def served(f, tmp):
    """F as its URL names it, served with its indexes (a RIGHT at a URL:
    csvidx's remote build reads it through its remote index)."""
    rf = copy.copy(f)
    rf.path = REMOTE.base + "/" + os.path.relpath(f.path, tmp).replace(os.sep, "/")
    return rf


def run_cases(csvidx, tmp, rng):
    keys = NASTY + ["absent-from-left"]
    right_rows = []
    for k in keys:
        for n in range(rng.randrange(0, 4)):
            right_rows.append([k, f"name {k} {n}", rng.choice(NASTY)])
    right_rows.append(["short"])  # lacks the second column
    rng.shuffle(right_rows)
    left_rows = []
    for i in range(300):
        k = rng.choice(NASTY + ["absent-from-right"])
        left_rows.append([str(i), k, rng.choice(NASTY)])
    left_rows += [["999"], ["1000", ""]]  # a short row, an empty key

    for delim, crlf, bom, rdelim in [(",", False, False, ","), (";", True, True, ";"), (",", True, False, ";"),
                                     ("\t", False, True, ",")]:
        tag = f"delimiter {delim!r}, crlf {crlf}, bom {bom}, right's delimiter {rdelim!r}"
        d = tempfile.mkdtemp(dir=tmp)
        right = CSVFile(os.path.join(d, "right.csv"), ["uid", "name", "note"], right_rows, rdelim, crlf, bom)
        build(csvidx, right.path, "uid", "uid,note", extra=["--delimiter", rdelim])
        left = CSVFile(os.path.join(d, "left.csv"), ["oid", "uid", "note"], left_rows, delim, crlf, bom)
        da = ["--delimiter", delim]
        check(csvidx, f"single key, {tag}", left, right, [1], [0], ["--key", "uid"] + da)
        check(csvidx, f"single key, RIGHT at a URL, {tag}", left, served(right, tmp), [1], [0], ["--key", "uid"] + da)
        check(csvidx, f"single key, stdin, --nulls, prefixes, {tag}", left, right, [1], [0],
              ["--key", "1", "--nulls", "-l", "L.", "-r", "R."] + da, nulls=True, pl="L.", pr="R.", stdin=True)
        check(csvidx, f"composite key, {tag}", left, right, [1, 2], [0, 2],
              ["--key", "uid,note"] + da)
        headerless = CSVFile(os.path.join(d, "noheader.csv"), None, left_rows[:100], delim, crlf, False)
        check(csvidx, f"headerless LEFT, {tag}", headerless, right, [1], [0],
              ["--key", "1", "--no-header", "--right-key", "uid"] + da)

    # A heavy key, and a RIGHT with a tail.
    d = tempfile.mkdtemp(dir=tmp)
    heavy = [["h", f"row {i}", str(i)] for i in range(20000)] + [["k", "one", "x"]]
    right = CSVFile(os.path.join(d, "right.csv"), ["uid", "name", "n"], heavy)
    build(csvidx, right.path, "uid")
    left = CSVFile(os.path.join(d, "left.csv"), ["uid"], [["h"], ["k"], ["z"], ["h"]])
    check(csvidx, "a heavy key", left, right, [0], [0], ["--key", "uid"])
    right.append([["z", "appended", "1"], ["h", "appended", "2"], ["k", "appended", "3"]])
    p = subprocess.run([csvidx, "update", right.path, "--no-compact", "-q"], capture_output=True)
    if p.returncode != 0:
        raise Fail(f"update: {p.stderr.decode()}")
    check(csvidx, "a RIGHT with a tail", left, right, [0], [0], ["--key", "uid"])
    check(csvidx, "a RIGHT with a tail, at a URL", left, served(right, tmp), [0], [0], ["--key", "uid"])
    edges(csvidx, tmp, rng)
    memory(csvidx, tmp)


def edges(csvidx, tmp, rng):
    """Rows that a join copies as written, or marks in its bitmap, at the
    edges of the dialect (issue 38, A1, A2, A6)."""
    # Short RIGHT rows, without the key, right after keyed ones: two rows
    # closer than the key's column count.
    d = tempfile.mkdtemp(dir=tmp)
    rows = []
    for i in range(400):
        if rng.random() < 0.4:
            rows.append([str(i)][:1] + [""] * rng.randrange(0, 3))  # 1 to 3 fields: no key
        else:
            rows.append([str(i), "b", "c", rng.choice(["K", "L", "M", "", "x,y"])])
    right = CSVFile(os.path.join(d, "right.csv"), ["a", "b", "c", "k"], rows)
    build(csvidx, right.path, "k")
    left = CSVFile(os.path.join(d, "left.csv"), ["k"], [["K"], ["M"], ["absent"]])
    check(csvidx, "a RIGHT keyed by its last column, with short rows", left, right, [0], [3], ["--key", "k"])

    # Last records that end inside a quote that never closes, on each side.
    for n, (lraw, lfields, rraw, rfields, lopen) in enumerate([
            (b'"2', ["2"], b'2,"open', ["2", "open"], True),
            (b'2,"a\nb', ["2", "a\nb"], b'2,"op\nen\n', ["2", "op\nen\n"], True),
            (b'"', [""], b'"', [""], True),
            (b'x,ab"c', ["x", 'ab"c'], b'3,"q""', ["3", 'q"'], False)]):
        d = tempfile.mkdtemp(dir=tmp)
        right = CSVFile(os.path.join(d, "right.csv"), ["k", "v"], [["1", "a"], ["2", "b"]])
        right.end_unterminated(rfields, rraw, True)
        build(csvidx, right.path, "k")
        left = CSVFile(os.path.join(d, "left.csv"), ["k", "w"], [["2", "x"], ["1", "y"], ["3", "z"]])
        left.end_unterminated(lfields, lraw, lopen)
        check(csvidx, f"unclosed last records {n}", left, right, [0], [0], ["--key", "k"])

    # RIGHT's last row had no terminator when it was indexed; an append
    # completed it (2,12 became 2,1246) and added a row, not indexed.
    d = tempfile.mkdtemp(dir=tmp)
    right = CSVFile(os.path.join(d, "right.csv"), ["k", "v"], [["1", "a"], ["2", "1246"], ["3", "c"]])
    with open(right.path, "rb") as f:
        whole = f.read()
    cut = whole.index(b"46\n3,c")
    with open(right.path, "wb") as f:
        f.write(whole[:cut])
    build(csvidx, right.path, "k")
    with open(right.path, "ab") as f:
        f.write(whole[cut:])
    right.rows = right.rows[:-1]  # 3,c is not indexed: it takes no part
    left = CSVFile(os.path.join(d, "left.csv"), ["k"], [["9"]])
    check(csvidx, "a RIGHT whose unterminated last row was completed", left, right, [0], [0], ["--key", "k"])
    left = CSVFile(os.path.join(d, "left2.csv"), ["k"], [["2"], ["1"]])
    check(csvidx, "a RIGHT whose unterminated last row was completed, matched", left, right, [0], [0], ["--key", "k"])


# The bound on csvidx join's anonymous memory (the mapped files aside) with a
# LEFT of a million rows from a pipe: the 64 MiB.
RSS_BOUND_KIB = 64 << 10


def memory(csvidx, tmp):
    """A LEFT of 1M rows, written to csvidx's standard input as it reads,
    joined with a RIGHT of 100k rows: the anonymous RSS, polled, stays under
    the bound, and every row comes out."""
    import threading
    import time
    d = tempfile.mkdtemp(dir=tmp)
    right = os.path.join(d, "users.csv")
    with open(right, "w") as f:
        f.write("user_id,name\n")
        for i in range(100_000):
            f.write(f"{i},user {i}\n")
    build(csvidx, right, "user_id")
    rows = 1_000_000
    p = subprocess.Popen([csvidx, "join", "--left", "-", right, "--key", "user_id"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        p.stdin.write(b"order_id,user_id,amount,note\n")
        chunk, pad = [], "x" * 80  # 95 MB in all: more than the bound, were it held
        for i in range(rows):
            chunk.append(f"{i},{(i * 7919) % 200_000},{i % 97},{pad}\n")
            if len(chunk) == 10_000:
                p.stdin.write("".join(chunk).encode())
                chunk = []
        p.stdin.write("".join(chunk).encode())
        p.stdin.close()

    out_lines = [0]

    def drain():
        for _ in p.stdout:
            out_lines[0] += 1

    threads = [threading.Thread(target=feed), threading.Thread(target=drain)]
    for t in threads:
        t.start()
    peak = 0
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.005)
    for t in threads:
        t.join()
    err = p.stderr.read().decode()
    if p.returncode != 0:
        raise Fail(f"join of 1M rows from a pipe: exit {p.returncode}: {err}")
    if out_lines[0] != rows + 1:
        raise Fail(f"join of 1M rows: {out_lines[0]} lines out, want {rows + 1}")
    if peak == 0 or peak > RSS_BOUND_KIB:
        raise Fail(f"join of 1M rows: anonymous RSS {peak} KiB, bound {RSS_BOUND_KIB} KiB")
    print(f"ok: a LEFT of 1M rows from a pipe: anonymous RSS at most {peak} KiB (bound {RSS_BOUND_KIB})")


if __name__ == "__main__":
    sys.exit(main())
