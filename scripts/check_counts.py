#!/usr/bin/env python3
"""Independent check of csvidx's row counts on a whole CSV file.

Python's ``csv`` module parses FILE (UTF-8, a BOM skipped) and counts the
records per value of the key column, found by its header name. From those
counts the script picks about ``--keys`` keys, the same ones on every run:

* the heaviest keys (most rows; ties broken by the key),
* a sample of the other existing keys (seeded, from the sorted keys),
* keys that do not occur: integers past the largest numeric key, existing
  keys with a leading zero (``"007"`` is not ``"7"``), and odd strings such as
  the empty key, ``"x,y"``, quotes, spaces and the header name itself.

It then runs ONE ``csvidx get FILE --count --keys-file KEYS`` and compares the
count of every key with its own. The index must exist (``FILE.csvidx``); if it
does not, ``csvidx build FILE --key KEY`` builds it first. Keys containing a
line break are never picked (a keys file holds one key per line); the empty
key is an empty line. Standard error of csvidx (for example the warning about
bytes that are not indexed yet) is ignored; only its exit status counts.

Usage (from the repository root)::

    python3 scripts/check_counts.py --csv FILE --csvidx BIN [--key user_id] [--keys N]

Exit status: 0 when every count matches (one summary line on stdout), 1 on a
mismatch (the first mismatches on stdout), 2 when the check could not run
(missing file or column, csvidx failed, Python's csv module rejected the file).

Python's csv module is the oracle only for files on which it agrees with
SPEC.md: it rejects a bare ``\\r`` outside quotes (SPEC.md calls it data), so
such a file stops the check with exit status 2 instead of a wrong verdict.
"""

import argparse
import collections
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time

DEFAULT_KEYS = 2000
DEFAULT_SEED = 1
HEAVY_SHARE = 0.10      # share of the picked keys taken from the heaviest keys
MISSING_SHARE = 0.10    # share of the picked keys that should not exist
MAX_MISMATCHES_SHOWN = 10
ODD_KEYS = (
    "", "007", "x,y", '"', '""', '"1"', "a\"b", " ", " 1", "1 ", "-1", "+1",
    "1.0", "0", "00", "\t", "a\tb", "é", "\ufeff1", "NULL", "NaN", "None",
)
ENCODING_ERRORS = "surrogateescape"  # keep undecodable bytes as they are


class CheckError(Exception):
    """The check could not run; the message says why."""


def parse_args(argv):
    """Return the parsed command line."""
    p = argparse.ArgumentParser(
        description="Compare csvidx get --count with row counts from Python's csv module.")
    p.add_argument("--csv", required=True, help="the CSV file")
    p.add_argument("--csvidx", required=True, help="the csvidx binary")
    p.add_argument("--key", default="user_id", help="key column, by header name (default user_id)")
    p.add_argument("--keys", type=int, default=DEFAULT_KEYS,
                   help=f"about how many keys to check (default {DEFAULT_KEYS})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"seed of the sample of ordinary keys (default {DEFAULT_SEED})")
    args = p.parse_args(argv)
    if args.keys < 1:
        p.error("--keys must be at least 1")
    return args


def count_rows(csv_path, key_name):
    """Parse the whole CSV; return (Counter of key -> rows, key column number, records, short records)."""
    csv.field_size_limit(sys.maxsize)
    counts = collections.Counter()
    records = short = 0
    with open(csv_path, encoding="utf-8-sig", errors=ENCODING_ERRORS, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            raise CheckError(f"{csv_path} is empty: no header")
        if key_name not in header:
            raise CheckError(f"{csv_path} has no column {key_name!r} in its header {header!r}")
        col = header.index(key_name)
        try:
            for row in reader:
                if not row:
                    continue  # a blank line is not a record
                records += 1
                if len(row) <= col:
                    short += 1
                    continue
                counts[row[col]] += 1
        except csv.Error as e:
            raise CheckError(f"Python's csv module cannot parse {csv_path} "
                             f"near line {reader.line_num}: {e}") from e
    return counts, col, records, short


def usable(key):
    """Whether a key can be written as one line of a keys file."""
    return "\n" not in key and "\r" not in key


def pick_keys(counts, n, seed):
    """Pick about n keys; return three lists: heavy, ordinary existing, missing."""
    existing = sorted(k for k in counts if usable(k))
    n_heavy = max(1, int(n * HEAVY_SHARE))
    n_missing = max(len(ODD_KEYS), int(n * MISSING_SHARE))
    by_weight = sorted(existing, key=lambda k: (-counts[k], k))
    heavy = by_weight[:n_heavy]
    heavy_set = set(heavy)
    rest = [k for k in existing if k not in heavy_set]
    n_ordinary = max(0, n - len(heavy) - n_missing)
    ordinary = random.Random(seed).sample(rest, min(n_ordinary, len(rest)))
    return heavy, ordinary, missing_keys(counts, existing, ordinary, n_missing)


def missing_keys(counts, existing, ordinary, n):
    """Return about n keys that do not occur: odd strings, zero-padded keys, ids past the max."""
    odd = [k for k in ODD_KEYS if k not in counts]
    room = max(0, n - len(odd))
    padded = [k for k in ("0" + o for o in ordinary if o.isascii() and o.isdigit())
              if k not in counts][: room // 2]
    numeric = [int(k) for k in existing if k.isascii() and k.isdigit()]
    first = max(numeric) + 1 if numeric else 1
    past = [str(i) for i in range(first, first + room - len(padded))]
    return odd + padded + past


def dedupe(keys):
    """Return the keys without repeats, in first-seen order."""
    return list(dict.fromkeys(keys))


def ensure_index(csvidx, csv_path, key_name):
    """Build the index with csvidx when FILE.csvidx does not exist; return whether it built."""
    if os.path.exists(csv_path + ".csvidx"):
        return False
    r = subprocess.run([csvidx, "build", csv_path, "--key", key_name],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if r.returncode != 0:
        raise CheckError(f"csvidx build failed (exit {r.returncode}): "
                         f"{r.stderr.decode(errors='replace').strip()}")
    return True


def index_info(csvidx, csv_path, col):
    """Check with csvidx info --json that the index is keyed by column col; return the info."""
    r = subprocess.run([csvidx, "info", csv_path, "--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if r.returncode != 0:
        raise CheckError(f"csvidx info failed (exit {r.returncode}): "
                         f"{r.stderr.decode(errors='replace').strip()}")
    info = json.loads(r.stdout)
    if info.get("key_column") != col:
        raise CheckError(f"the index of {csv_path} is keyed by column {info.get('key_column')} "
                         f"({info.get('key_name')!r}), not {col}; rebuild it with "
                         f"csvidx build {csv_path} --key ... or pick that --key")
    return info


def csvidx_counts(csvidx, csv_path, keys):
    """Run one csvidx get --count --keys-file over keys; return the list of (key, count)."""
    with tempfile.NamedTemporaryFile("wb", prefix="check_counts.", suffix=".keys") as f:
        for k in keys:
            f.write(k.encode("utf-8", ENCODING_ERRORS) + b"\n")
        f.flush()
        r = subprocess.run([csvidx, "get", csv_path, "--count", "--keys-file", f.name],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if r.returncode not in (0, 1):  # 1: nothing matched, still a valid answer
        raise CheckError(f"csvidx get --count failed (exit {r.returncode}): "
                         f"{r.stderr.decode(errors='replace').strip()}")
    out = []
    for line in r.stdout.decode("utf-8", ENCODING_ERRORS).split("\n")[:-1]:
        key, sep, n = line.rpartition("\t")
        if not sep or not n.isdigit():
            raise CheckError(f"csvidx printed a line that is not KEY<TAB>COUNT: {line!r}")
        out.append((key, int(n)))
    return out


def compare(keys, counts, got):
    """Return a list of mismatch descriptions (empty when everything matches)."""
    problems = []
    if len(got) != len(keys):
        problems.append(f"asked for {len(keys)} distinct keys, csvidx printed {len(got)} lines")
    for want_key, (got_key, n) in zip(keys, got):
        if got_key != want_key:
            problems.append(f"key {want_key!r}: csvidx printed key {got_key!r} in its place")
        elif n != counts.get(want_key, 0):
            problems.append(f"key {want_key!r}: csv module counts {counts.get(want_key, 0)}, "
                            f"csvidx says {n}")
    return problems


def check(args):
    """Run the whole check; return the exit status."""
    t0 = time.perf_counter()
    counts, col, records, short = count_rows(args.csv, args.key)
    t_parse = time.perf_counter() - t0
    heavy, ordinary, missing = pick_keys(counts, args.keys, args.seed)
    keys = dedupe(heavy + ordinary + missing)
    built = ensure_index(args.csvidx, args.csv, args.key)
    info = index_info(args.csvidx, args.csv, col)
    t1 = time.perf_counter()
    got = csvidx_counts(args.csvidx, args.csv, keys)
    t_get = time.perf_counter() - t1
    problems = compare(keys, counts, got)
    if problems:
        print(f"check_counts: FAIL: {len(problems)} mismatches among {len(keys)} keys")
        for p in problems[:MAX_MISMATCHES_SHOWN]:
            print("  " + p)
        if info.get("bytes_behind"):
            print(f"  note: {info['bytes_behind']} bytes at the end of {args.csv} are not indexed; "
                  f"run csvidx update {args.csv} and check again")
        return 1
    print(f"check_counts: OK: {len(keys)} keys checked ({len(ordinary)} existing, "
          f"{len(heavy)} heavy, {len(missing)} missing); {records} rows counted "
          f"({short} without key, {len(counts)} distinct keys); "
          f"parse {t_parse:.1f}s, csvidx get --count {t_get:.3f}s"
          f"{' (index built first)' if built else ''}")
    return 0


def main(argv=None):
    """Entry point: parse flags, run the check, turn errors into exit status 2."""
    args = parse_args(argv)
    try:
        return check(args)
    except (CheckError, OSError) as e:
        print(f"check_counts: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
