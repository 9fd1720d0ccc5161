#!/usr/bin/env python3
"""What a pandas user does to get a key's rows from a CSV without an index.

For each key of KEYSFILE the script times the whole path a one-off question
takes in pandas: ``pd.read_csv(FILE, usecols=[KEY], dtype=str)`` and then
``(df[KEY] == key).sum()``, once per key (every question reads the file again;
that is what it costs without an index). The read and the filter are also
reported apart.

Reading once and filtering many keys is the realistic batch case: with
``--batch BATCHFILE`` the script times one ``read_csv`` plus one
``df[KEY].isin(batch_keys).sum()``.

Keys are compared as exact strings, like csvidx: the column is read with
``dtype=str`` and ``na_filter=False``, so an empty field is the empty key and
"NA" or "null" stay strings (pandas' default would turn them into NaN).
Key files hold one key per line (``\\n`` or ``\\r\\n``; an empty line is the
empty key), as ``csvidx get --keys-file`` reads them.

Usage (pandas comes from Debian's python3-pandas for /usr/bin/python3)::

    /usr/bin/python3 scripts/pandas_bench.py --csv FILE --key user_id --keys KEYSFILE [--batch BATCHFILE]

It prints one JSON object on stdout::

    {"tool": "pandas", "version": "...", "csv_bytes": B,
     "queries": [{"key": K, "count": N, "seconds": S,
                  "read_seconds": R, "filter_seconds": F}, ...],
     "batch": {"keys": K, "count": N, "seconds": S,
               "read_seconds": R, "filter_seconds": F},
     "peak_rss_mib": M}

``batch`` is null without ``--batch``. ``peak_rss_mib`` is the peak resident
memory of the whole process (``getrusage`` ``ru_maxrss``). Exit status 0, or 2
when pandas is missing or a file cannot be read.
"""

import argparse
import json
import os
import resource
import sys
import time

INSTALL_HINT = ("install it with: apt-get install -y python3-pandas "
                "(then run this script with /usr/bin/python3), or pip install pandas")


def import_pandas():
    """Return the pandas module, or exit with a clear message when it is missing."""
    try:
        import pandas  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        print(f"pandas_bench: pandas is not installed for {sys.executable} ({e}); {INSTALL_HINT}",
              file=sys.stderr)
        sys.exit(2)
    return pandas


def parse_args(argv):
    """Return the parsed command line."""
    p = argparse.ArgumentParser(
        description="Time pandas read_csv + filter per key, and one read + isin for a batch.")
    p.add_argument("--csv", required=True, help="the CSV file")
    p.add_argument("--key", default="user_id", help="key column, by header name (default user_id)")
    p.add_argument("--keys", required=True, help="file of keys to time one by one, one per line")
    p.add_argument("--batch", help="file of keys to count with one read and isin, one per line")
    return p.parse_args(argv)


def read_keys(path):
    """Read one key per line as csvidx --keys-file does: \\n or \\r\\n, empty line = empty key."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline after the last key does not start another key
    keys = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    return [k.decode("utf-8", "surrogateescape") for k in keys]


def read_column(pd, csv_path, key):
    """Read the key column as exact strings; return (Series, seconds)."""
    t0 = time.perf_counter()
    df = pd.read_csv(csv_path, usecols=[key], dtype=str, na_filter=False)
    return df[key], time.perf_counter() - t0


def time_query(pd, csv_path, key, value):
    """Read the file and count the rows whose key is value; return the query's JSON object."""
    col, t_read = read_column(pd, csv_path, key)
    t0 = time.perf_counter()
    n = int((col == value).sum())
    t_filter = time.perf_counter() - t0
    return {"key": value, "count": n, "seconds": round(t_read + t_filter, 6),
            "read_seconds": round(t_read, 6), "filter_seconds": round(t_filter, 6)}


def time_batch(pd, csv_path, key, values):
    """Read the file once and count the rows whose key is any of values."""
    distinct = list(dict.fromkeys(values))
    col, t_read = read_column(pd, csv_path, key)
    t0 = time.perf_counter()
    n = int(col.isin(distinct).sum())
    t_filter = time.perf_counter() - t0
    return {"keys": len(distinct), "count": n, "seconds": round(t_read + t_filter, 6),
            "read_seconds": round(t_read, 6), "filter_seconds": round(t_filter, 6)}


def peak_rss_mib():
    """Peak resident memory of this process in MiB (ru_maxrss is KiB on Linux)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main(argv=None):
    """Run the benchmark and print one JSON object."""
    args = parse_args(argv)
    pd = import_pandas()
    try:
        keys = read_keys(args.keys)
        batch = read_keys(args.batch) if args.batch else None
        result = {
            "tool": "pandas",
            "version": pd.__version__,
            "csv": args.csv,
            "csv_bytes": os.path.getsize(args.csv),
            "queries": [time_query(pd, args.csv, args.key, k) for k in keys],
            "batch": time_batch(pd, args.csv, args.key, batch) if batch is not None else None,
        }
    except (OSError, ValueError) as e:  # missing file, or no such column (pandas raises ValueError)
        print(f"pandas_bench: {e}", file=sys.stderr)
        return 2
    result["peak_rss_mib"] = peak_rss_mib()
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
