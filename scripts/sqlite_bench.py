#!/usr/bin/env python3
"""What a SQLite user does to get a key's rows from a CSV: import, index, query.

With the sqlite3 command-line tool the script

1. imports FILE into a fresh database in a temporary directory
   (``.import --csv FILE t``: the header row names the columns, every column
   is TEXT, quoted fields may hold delimiters, ``""`` and line breaks), timed;
2. creates the index (``CREATE INDEX i ON t("KEY")``), timed;
3. for each key of KEYSFILE, times ``SELECT count(*) FROM t WHERE "KEY" = 'key'``
   as a separate ``sqlite3 -readonly`` process (what a ``csvidx get`` process
   is compared with), and the same query in this process through Python's
   sqlite3 module on the same database file, bound as a parameter;
4. with ``--batch BATCHFILE``, times one query that counts the rows of all
   batch keys: the keys go into a temporary table and the query counts
   ``WHERE "KEY" IN (SELECT v FROM temp.k)``, in a ``sqlite3`` process and in
   this process.

Each timing is the fastest of ``--repeat`` runs (default 3); every run must
give the same count. Keys are compared as exact text, like csvidx: ``'007'`` is
not ``'7'``. Key files hold one key per line (``\\n`` or ``\\r\\n``; an empty
line is the empty key), as ``csvidx get --keys-file`` reads them.

Usage (the sqlite3 tool is Debian's package ``sqlite3``)::

    python3 scripts/sqlite_bench.py --csv FILE --key user_id --keys KEYSFILE [--batch BATCHFILE] [--sqlite3 /usr/bin/sqlite3]

It prints one JSON object on stdout::

    {"tool": "sqlite", "version": "3.40.1", "python_sqlite_version": "...",
     "csv_bytes": B, "rows": R, "import_seconds": S, "index_seconds": S,
     "table_bytes": B, "db_bytes": B, "repeat": N,
     "queries": [{"key": K, "count": N, "process_seconds": S,
                  "inprocess_seconds": S2}, ...],
     "batch": {"keys": K, "count": N, "process_seconds": S,
               "inprocess_seconds": S2}}

``table_bytes`` is the database after the import, ``db_bytes`` after the
index; ``batch`` is null without ``--batch``. The database is deleted at the
end. Exit status 0, or 2 when sqlite3 is missing or a step fails.
"""

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

DEFAULT_REPEAT = 3
TABLE = "t"
INDEX = "i"
BATCH_SELECT = "SELECT count(*) FROM {table} WHERE {col} IN (SELECT v FROM temp.k)"
INSTALL_HINT = "install it with: apt-get install -y sqlite3"


class BenchError(Exception):
    """A step of the benchmark failed; the message says which and why."""


def parse_args(argv):
    """Return the parsed command line."""
    p = argparse.ArgumentParser(
        description="Time sqlite3 .import, CREATE INDEX and count(*) lookups per key and in batch.")
    p.add_argument("--csv", required=True, help="the CSV file")
    p.add_argument("--key", default="user_id", help="key column, by header name (default user_id)")
    p.add_argument("--keys", required=True, help="file of keys to time one by one, one per line")
    p.add_argument("--batch", help="file of keys to count in one query, one per line")
    p.add_argument("--sqlite3", default="sqlite3", help="the sqlite3 command-line tool (default: from PATH)")
    p.add_argument("--repeat", type=int, default=DEFAULT_REPEAT,
                   help=f"runs per lookup; the fastest is reported (default {DEFAULT_REPEAT})")
    p.add_argument("--tmp-dir", help="where the temporary database goes (default: the system's)")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def read_keys(path):
    """Read one key per line as csvidx --keys-file does: \\n or \\r\\n, empty line = empty key."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline after the last key does not start another key
    keys = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    return [k.decode("utf-8", "surrogateescape") for k in keys]


def ident(name):
    """Quote an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(value):
    """Quote an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def dot_arg(path):
    """Quote a file name as an argument of a sqlite3 dot-command."""
    if "'" not in path:
        return "'" + path + "'"  # taken literally, no escapes
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def find_sqlite3(name):
    """Return the path of the sqlite3 tool and its version, or raise BenchError."""
    path = shutil.which(name)
    if path is None:
        raise BenchError(f"the sqlite3 command-line tool {name!r} is not found; {INSTALL_HINT}")
    r = subprocess.run([path, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, check=False)
    if r.returncode != 0 or not r.stdout.split():
        raise BenchError(f"{path} --version failed: {r.stderr.strip()}")
    return path, r.stdout.split()[0]


def run_sqlite(tool, db, script, readonly=False):
    """Run the sqlite3 tool on db with script on standard input; return (stdout, seconds)."""
    cmd = [tool, "-bail", "-batch"] + (["-readonly"] if readonly else []) + [db]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, input=script.encode("utf-8", "surrogateescape"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        raise BenchError(f"sqlite3 failed (exit {r.returncode}) on {script[:80]!r}: "
                         f"{r.stderr.decode(errors='replace').strip()}")
    return r.stdout.decode("utf-8", "surrogateescape"), seconds


def count_from(stdout, what):
    """Parse the single count(*) that the sqlite3 tool printed."""
    text = stdout.strip()
    if not text.isdigit():
        raise BenchError(f"sqlite3 printed {text[:80]!r} instead of a count for {what}")
    return int(text)


def best(runs, what):
    """Return (count, fastest seconds) of runs [(count, seconds)]; all counts must agree."""
    counts = {c for c, _ in runs}
    if len(counts) != 1:
        raise BenchError(f"{what}: the runs disagree on the count: {sorted(counts)}")
    return counts.pop(), min(s for _, s in runs)


def lookup_sql(key, value):
    """The one-key count query with the value as a literal."""
    return f"SELECT count(*) FROM {TABLE} WHERE {ident(key)} = {literal(value)};\n"


def batch_sql(key, values):
    """Temporary table of the batch keys and an IN over it: counts each matching row once.

    IN (SELECT ...) makes SQLite probe the index of t once per key; a plain JOIN
    would, without statistics on the temporary table, scan the whole index of t.
    """
    rows = ",".join(f"({literal(v)})" for v in values)
    return (f"CREATE TEMP TABLE k(v TEXT PRIMARY KEY);\n"
            f"INSERT INTO k VALUES {rows};\n"
            f"{BATCH_SELECT.format(table=TABLE, col=ident(key))};\n")


def time_inprocess(conn, sql, params):
    """Run one count query through Python's sqlite3 module; return (count, seconds)."""
    t0 = time.perf_counter()
    n = conn.execute(sql, params).fetchone()[0]
    return n, time.perf_counter() - t0


def time_inprocess_batch(conn, key, values):
    """Fill a temporary table with values and count over it; return (count, seconds)."""
    t0 = time.perf_counter()
    conn.execute("CREATE TEMP TABLE k(v TEXT PRIMARY KEY)")
    conn.executemany("INSERT INTO k VALUES (?)", [(v,) for v in values])
    n = conn.execute(BATCH_SELECT.format(table=TABLE, col=ident(key))).fetchone()[0]
    seconds = time.perf_counter() - t0
    conn.execute("DROP TABLE temp.k")
    return n, seconds


def check_column(conn, key):
    """Raise BenchError unless the imported table has the key column."""
    cols = [row[1] for row in conn.execute(f"PRAGMA table_info({TABLE})")]
    if key not in cols:
        raise BenchError(f"the CSV has no column {key!r}; its header gives {cols!r}")


def bench_queries(tool, db, conn, key, values, repeat):
    """Time each one-key lookup as a process and in this process."""
    out = []
    sql = f"SELECT count(*) FROM {TABLE} WHERE {ident(key)} = ?"
    for v in values:
        script = lookup_sql(key, v)
        proc = []
        for _ in range(repeat):
            stdout, s = run_sqlite(tool, db, script, readonly=True)
            proc.append((count_from(stdout, repr(v)), s))
        n, s_proc = best(proc, f"key {v!r} (process)")
        n2, s_in = best([time_inprocess(conn, sql, (v,)) for _ in range(repeat)],
                        f"key {v!r} (in process)")
        if n2 != n:
            raise BenchError(f"key {v!r}: the sqlite3 tool counts {n}, Python's sqlite3 {n2}")
        out.append({"key": v, "count": n, "process_seconds": round(s_proc, 6),
                    "inprocess_seconds": round(s_in, 6)})
    return out


def bench_batch(tool, db, conn, key, values, repeat):
    """Time one count over all batch keys, as a process and in this process."""
    distinct = list(dict.fromkeys(values))
    if not distinct:
        return {"keys": 0, "count": 0, "process_seconds": 0.0, "inprocess_seconds": 0.0}
    script = batch_sql(key, distinct)
    proc = []
    for _ in range(repeat):
        stdout, s = run_sqlite(tool, db, script, readonly=True)
        proc.append((count_from(stdout, "the batch"), s))
    n, s_proc = best(proc, "batch (process)")
    n2, s_in = best([time_inprocess_batch(conn, key, distinct) for _ in range(repeat)],
                    "batch (in process)")
    if n2 != n:
        raise BenchError(f"batch: the sqlite3 tool counts {n}, Python's sqlite3 {n2}")
    return {"keys": len(distinct), "count": n, "process_seconds": round(s_proc, 6),
            "inprocess_seconds": round(s_in, 6)}


def bench(args):
    """Run the whole benchmark in a temporary directory; return the result object."""
    tool, version = find_sqlite3(args.sqlite3)
    if not os.path.isfile(args.csv):
        raise BenchError(f"{args.csv} is not a file")
    keys = read_keys(args.keys)
    batch = read_keys(args.batch) if args.batch else None
    with tempfile.TemporaryDirectory(prefix="sqlite_bench.", dir=args.tmp_dir) as tmp:
        db = os.path.join(tmp, "bench.db")
        _, t_import = run_sqlite(tool, db, f".import --csv {dot_arg(args.csv)} {TABLE}\n")
        table_bytes = os.path.getsize(db)
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            check_column(conn, args.key)
            _, t_index = run_sqlite(tool, db, f"CREATE INDEX {INDEX} ON {TABLE}({ident(args.key)});\n")
            result = {
                "tool": "sqlite",
                "version": version,
                "python_sqlite_version": sqlite3.sqlite_version,
                "csv": args.csv,
                "csv_bytes": os.path.getsize(args.csv),
                "rows": conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0],
                "import_seconds": round(t_import, 6),
                "index_seconds": round(t_index, 6),
                "table_bytes": table_bytes,
                "db_bytes": os.path.getsize(db),
                "repeat": args.repeat,
                "queries": bench_queries(tool, db, conn, args.key, keys, args.repeat),
                "batch": (bench_batch(tool, db, conn, args.key, batch, args.repeat)
                          if batch is not None else None),
            }
        finally:
            conn.close()
    return result


def main(argv=None):
    """Entry point: run the benchmark, print one JSON object, turn errors into exit status 2."""
    args = parse_args(argv)
    try:
        result = bench(args)
    except (BenchError, OSError, sqlite3.Error) as e:
        print(f"sqlite_bench: {e}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
