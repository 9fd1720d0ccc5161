"""Shared helpers of the csvidx binding tests.

The oracle is independent of csvidx: CSV files are written here with
Python's csv module, which records the exact bytes of every row, and what a
lookup must return is derived from that and from pandas.read_csv over the
whole file.

Run from the repository root, with the library built in place:

    python/build.sh && PYTHONPATH=python /usr/bin/python3 -m pytest -q python/tests
"""

import csv
import io
import os
import shutil
import subprocess

import pytest

# csvidx is not imported here at module level: pytest loads this file before
# it enables faulthandler, and a SIGBUS handler installed after the Go
# runtime's replaces it (see README, "Limits"). The test modules, imported
# later, load the library after faulthandler, so Go's handler comes first and
# passes other faults on to faulthandler's.

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class CSVFile:
    """A CSV written row by row, with each data row's exact bytes and
    fields kept (header excluded)."""

    def __init__(self, path, header, rows, key_col, delimiter=",", lineterminator="\n",
                 quoting=csv.QUOTE_MINIMAL, bom=False):
        self.path = str(path)
        self.header = header
        self.key_col = key_col
        self.delimiter = delimiter
        self.rows = []  # (fields, raw bytes)
        out = io.BytesIO()
        if bom:
            out.write(b"\xef\xbb\xbf")

        def encode(fields):
            s = io.StringIO()
            csv.writer(s, delimiter=delimiter, lineterminator=lineterminator, quoting=quoting).writerow(fields)
            return s.getvalue().encode("utf-8")

        if header is not None:
            out.write(encode(header))
        for fields in rows:
            raw = encode(fields)
            out.write(raw)
            self.rows.append((list(fields), raw))
        with open(self.path, "wb") as f:
            f.write(out.getvalue())

    def positions(self, keys):
        """The data row numbers (0-based, as pandas numbers them) whose key
        is one of keys (str)."""
        keys = set(keys)
        return [i for i, (fields, _) in enumerate(self.rows) if len(fields) > self.key_col and
                fields[self.key_col] in keys]

    def raw(self, keys):
        return b"".join(self.rows[i][1] for i in self.positions(keys))

    def count(self, key):
        return len(self.positions([key]))


def expected_frame(f, keys, **read_csv_kwargs):
    """What get must return: pandas.read_csv over the whole file, with the
    same options, filtered to the rows whose key is one of keys."""
    import pandas as pd  # pylint: disable=import-outside-toplevel
    kw = dict(read_csv_kwargs)
    kw.setdefault("sep", f.delimiter)
    if f.header is None:
        kw.setdefault("header", None)
    full = pd.read_csv(f.path, **kw)
    assert len(full) == len(f.rows), "the oracle's rows and pandas' rows must line up"
    return full.iloc[f.positions(keys)].reset_index(drop=True)


@pytest.fixture(autouse=True, scope="session")
def no_index_dir():
    """The tests run without CSVIDX_INDEX_DIR, whatever the environment that
    runs them says: indexes go next to their CSVs unless a test says
    otherwise (test_indexdir.py). Session-scoped, so that it comes before
    the fixtures of every scope."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("CSVIDX_INDEX_DIR", raising=False)
        yield


@pytest.fixture
def orders(tmp_path):
    """A small orders CSV indexed by user_id, with nasty keys."""
    import csvidx  # pylint: disable=import-outside-toplevel
    f = CSVFile(tmp_path / "orders.csv", ["order_id", "user_id", "amount", "comment"], ORDER_ROWS, key_col=1)
    csvidx.build(f.path, key="user_id")
    return f


NASTY_KEYS = ["a,b", 'x"y', "line\nbreak", "crlf\r\ninside", "ключ🙂", "", "007", "7", " 7", "7 ", '"q"', "NA",
              "tab\tkey"]

ORDER_ROWS = [[str(1000 + i), k, f"{i * 1.25:.2f}", c] for i, (k, c) in enumerate(
    [(k, c) for k in NASTY_KEYS for c in ("first", "a, comma", 'say "hi"', "multi\nline")] +
    [(str(u), "plain") for u in range(50) for _ in range(3)] +
    [("7", "seven again"), ("007", "zero zero seven again")])]


@pytest.fixture(scope="session")
def cli(tmp_path_factory):
    """The csvidx command, built from this checkout (for comparing error
    messages); skips when Go is not installed."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed")
    exe = str(tmp_path_factory.mktemp("cli") / "csvidx")
    subprocess.run([go, "build", "-o", exe, "./cmd/csvidx"], cwd=REPO, check=True)
    return exe


def cli_error(cli_path, *args):
    """The message the CLI prints for args, without "csvidx: "."""
    p = subprocess.run([cli_path, *args], capture_output=True, text=True, check=False)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith("csvidx: ")
    return line[len("csvidx: "):]
