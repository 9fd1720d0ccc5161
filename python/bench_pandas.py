#!/usr/bin/env python3
"""A user's rows as a pandas DataFrame: csvidx.Index.get against chunked
pandas (and DuckDB), with the results verified equal before anything is
timed.

Three questions, as in the Rust version's table ("Python and pandas"):

* an ordinary key: the first key of KEYSFILE (about 8 rows in csvgen data);
* a heavy key: --heavy (csvgen's heavy ids are 1..1000; 20% of all rows);
* a batch: every key of KEYSFILE (1000 ordinary keys) in one call.

Each is answered three ways:

* csvidx: ``Index.get(keys, dtype=DTYPES)``, warm (the files in the page
  cache; the best and the median of many runs) and cold (the index's and the
  CSV's pages dropped from the page cache before each run, with
  ``posix_fadvise(DONTNEED)``; no root needed). Also reported warm: ``get``
  without kwargs (the key column as text, every other column typed by
  read_csv's inference), ``get_bytes`` (the rows, no DataFrame), opening
  the index, and ``read_csv`` alone over the same header and rows already in
  memory: the floor that pandas sets under ``get``;
* pandas: ``read_csv(FILE, chunksize=--chunksize, dtype=DTYPES)`` with
  ``chunk[chunk[KEY].isin(keys)]`` on each chunk, concatenated: what a pandas
  user does without an index, in bounded memory. One run per question;
* DuckDB (with --duckdb): ``count(*) ... WHERE key = ?`` over the CSV,
  through scripts/duckdb (a separate Go module, run with ``go run``); its
  counts must equal csvidx's row counts.

Before any timing, the csvidx frame and the pandas frame of each question
must be equal: ``assert_frame_equal`` after sorting both by the first column
(order_id). DTYPES reads every column as text except the numbers, so that
both frames have the same types (a column typed by inference can differ
between 8 found rows and the whole file: that is why get takes dtype=).

Usage (pandas from Debian's python3-pandas; the library built in place)::

    go run ./scripts/csvgen -rows 20000000 -o /tmp/x.csv -keys-out /tmp/k.txt -stats
    python/build.sh
    PYTHONPATH=python /usr/bin/python3 python/bench_pandas.py --csv /tmp/x.csv --keys /tmp/k.txt --duckdb

The CSV is indexed first (by --key) unless it has an index. The script
prints a table and writes JSON to --results (default: results/tmp/ at the
repository root) as pandas-CSVBYTES-TIMESTAMP.json, with the machine's core
count and load average: timings on a busy machine are noisy.
"""

import argparse
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import pandas as pd  # noqa: E402  pylint: disable=wrong-import-position
from pandas.testing import assert_frame_equal  # noqa: E402  pylint: disable=wrong-import-position

import csvidx  # noqa: E402  pylint: disable=wrong-import-position

# csvgen's columns: numbers typed, the rest text (the key column included).
CSVGEN_DTYPES = {"order_id": "int64", "user_id": str, "ts": str, "amount": "float64", "status": str,
                 "comment": str}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--csv", required=True, help="the CSV (csvgen's orders shape unless --dtypes)")
    p.add_argument("--key", default="user_id", help="the key column (default user_id)")
    p.add_argument("--keys", required=True, help="ordinary keys, one a line: the first is the ordinary key, "
                                                 "all are the batch")
    p.add_argument("--heavy", default="1", help="the heavy key (default 1: csvgen's heavy ids are 1..1000)")
    p.add_argument("--dtypes", help="JSON {column: dtype} for both sides (default: csvgen's columns)")
    p.add_argument("--chunksize", type=int, default=2_000_000, help="pandas' rows per chunk (default 2000000)")
    p.add_argument("--runs", type=int, default=200, help="warm runs of the ordinary key (heavy: /10, batch: /40)")
    p.add_argument("--cold-runs", type=int, default=5, help="cold runs of each question (0: none)")
    p.add_argument("--duckdb", action="store_true", help="also time DuckDB through scripts/duckdb (go run)")
    p.add_argument("--no-pandas", action="store_true", help="skip chunked pandas (and the verification)")
    p.add_argument("--results", default=os.path.join(REPO, "results", "tmp"), help="directory for the JSON")
    return p.parse_args(argv)


def timed(fn, runs, before=None):
    """Run fn runs times; return (best, median) seconds and the last result."""
    times = []
    result = None
    for _ in range(max(runs, 1)):
        if before is not None:
            before()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times), result


def pandas_chunked(path, key, keys, dtypes, chunksize):
    keyset = set(keys)
    parts = [chunk[chunk[key].isin(keyset)] for chunk in pd.read_csv(path, chunksize=chunksize, dtype=dtypes)]
    return pd.concat(parts, ignore_index=True)


def same_frames(a, b):
    col = a.columns[0]
    assert_frame_equal(a.sort_values(col).reset_index(drop=True), b.sort_values(col).reset_index(drop=True))


def duckdb(path, key, ordinary, heavy, batch_file):
    keys_file = os.path.join(os.path.dirname(os.path.abspath(batch_file)), ".bench_pandas_duckdb_keys.txt")
    with open(keys_file, "w", encoding="utf-8") as f:
        f.write(f"{ordinary}\n{heavy}\n")
    try:
        out = subprocess.run(["go", "run", ".", "-csv", os.path.abspath(path), "-key", key, "-keys", keys_file,
                              "-batch", os.path.abspath(batch_file), "-runs", "1"],
                             cwd=os.path.join(REPO, "scripts", "duckdb"), check=True, capture_output=True, text=True)
    finally:
        os.remove(keys_file)
    r = json.loads(out.stdout)
    return r, {"ordinary key": r["queries"][0], "heavy key": r["queries"][1], "batch of keys": r["batch"]}


def main(argv):
    a = parse_args(argv)
    dtypes = json.loads(a.dtypes) if a.dtypes else CSVGEN_DTYPES
    with open(a.keys, encoding="utf-8") as f:
        batch = [line.rstrip("\r\n") for line in f]
    if not batch:
        sys.exit("bench_pandas: --keys is empty")
    load_before = os.getloadavg()
    report = {"tool": "bench_pandas", "csv": a.csv, "csv_bytes": os.path.getsize(a.csv), "cores": os.cpu_count(),
              "loadavg_start": load_before, "python": platform.python_version(), "pandas": pd.__version__,
              "chunksize": a.chunksize, "queries": []}

    if not os.path.exists(a.csv + ".csvidx"):
        t0 = time.perf_counter()
        info = csvidx.build(a.csv, key=a.key)
        report["build_seconds"] = time.perf_counter() - t0
        print(f"indexed {info['rows']} rows in {report['build_seconds']:.2f}s", file=sys.stderr)

    def open_close():
        csvidx.Index(a.csv).close()
    _, report["open_seconds_p50"], _ = timed(open_close, 50)
    idx = csvidx.Index(a.csv)
    report["rows"] = idx.info["rows"]

    questions = [("ordinary key", [batch[0]], a.runs), ("heavy key", [a.heavy], max(a.runs // 10, 3)),
                 ("batch of keys", batch, max(a.runs // 40, 3))]
    for name, keys, runs in questions:
        q = {"name": name, "keys": len(keys)}
        ours = idx.get(keys, dtype=dtypes)
        q["rows"] = len(ours)
        if not a.no_pandas:
            print(f"{name}: pandas chunked...", file=sys.stderr)
            t0 = time.perf_counter()
            theirs = pandas_chunked(a.csv, a.key, keys, dtypes, a.chunksize)
            q["pandas_chunked_seconds"] = time.perf_counter() - t0
            same_frames(ours, theirs)  # verified equal before csvidx is timed
            q["verified"] = True
        q["csvidx_get_best"], q["csvidx_get_p50"], _ = timed(lambda k=keys: idx.get(k, dtype=dtypes), runs)
        q["csvidx_get_default_typing_p50"] = timed(lambda k=keys: idx.get(k), runs)[1]
        q["csvidx_get_bytes_p50"] = timed(lambda k=keys: idx.get_bytes(k), runs)[1]
        found = idx.header + idx.get_bytes(keys)  # the floor: read_csv alone over the same bytes in memory
        q["read_csv_alone_p50"] = timed(lambda: pd.read_csv(io.BytesIO(found), dtype=dtypes), runs)[1]
        if a.cold_runs > 0:
            q["csvidx_get_cold_p50"] = timed(lambda k=keys: idx.get(k, dtype=dtypes), a.cold_runs,
                                             before=idx._drop_cache)[1]  # pylint: disable=protected-access
        report["queries"].append(q)
        print(f"{name}: {q['rows']} rows, csvidx warm p50 {q['csvidx_get_p50'] * 1000:.2f} ms", file=sys.stderr)

    if a.duckdb:
        print("DuckDB...", file=sys.stderr)
        raw, by_name = duckdb(a.csv, a.key, batch[0], a.heavy, a.keys)
        report["duckdb"] = raw
        for q in report["queries"]:
            d = by_name[q["name"]]
            assert d["count"] == q["rows"], (q["name"], d["count"], q["rows"])
            q["duckdb_seconds"] = d["seconds"]
    idx.close()
    report["loadavg_end"] = os.getloadavg()

    os.makedirs(a.results, exist_ok=True)
    out = os.path.join(a.results, f"pandas-{report['csv_bytes']}-{time.strftime('%Y%m%dT%H%M%S')}.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print_table(report)
    print(f"\nwrote {out}")


def ms(s):
    if s is None:
        return "—"
    return f"{s * 1000:.2f} ms" if s < 0.1 else f"{s:.2f} s"


def print_table(r):
    print(f"\n{r['rows']:,} rows, {r['csv_bytes'] / 2**20:.0f} MiB; {r['cores']} cores, load average "
          f"{r['loadavg_start'][0]:.2f} at the start; Index() opens in {ms(r['open_seconds_p50'])}")
    print("| question | rows | csvidx get (warm p50) | default typing (warm) | get_bytes (warm) | "
          "read_csv alone | csvidx get (cold) | pandas chunked | DuckDB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for q in r["queries"]:
        print(f"| {q['name']} | {q['rows']:,} | {ms(q['csvidx_get_p50'])} | "
              f"{ms(q['csvidx_get_default_typing_p50'])} | {ms(q['csvidx_get_bytes_p50'])} | "
              f"{ms(q['read_csv_alone_p50'])} | "
              f"{ms(q.get('csvidx_get_cold_p50'))} | {ms(q.get('pandas_chunked_seconds'))} | "
              f"{ms(q.get('duckdb_seconds'))} |")


if __name__ == "__main__":
    main(sys.argv[1:])
