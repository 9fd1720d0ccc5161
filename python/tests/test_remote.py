"""Remote CSVs from Python (issue 41): csvidx.Index opens a CSV at an
http URL through its index next to it (URL.csvidx and its fence), fetched
in part, and answers as the local file's index does. The server is
scripts/rangeserver.py: byte ranges, strong ETags and If-Match, on
127.0.0.1."""

import os
import sys

import pytest

import csvidx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import rangeserver  # noqa: E402  the repository's range server, shared with scripts/oracle_test.py

from conftest import ORDER_ROWS, CSVFile


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    srv, base = rangeserver.serve(root)
    yield srv, root, base
    srv.shutdown()


def test_remote_reads_as_local(tmp_path, server, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    srv, root, base = server
    header = ["order_id", "user_id", "amount", "comment"]
    plain = CSVFile(root / "orders.csv", header, ORDER_ROWS, key_col=1)
    csvidx.build(plain.path, key="user_id")
    keys = sorted({r[1] for r in ORDER_ROWS})
    url = base + "/orders.csv"
    with csvidx.Index(url) as r, csvidx.Index(plain.path) as p:
        for k in keys[:50] + ["absent"]:
            assert r.get_bytes(k) == p.get_bytes(k), k
        assert r.count(keys) == p.count(keys)
        assert r.header == p.header
        assert r.get(keys[:5]).equals(p.get(keys[:5]))
        assert r.info["rows"] == p.info["rows"]
    with pytest.raises(csvidx.CsvIdxError, match="does not exist; build it"):
        csvidx.Index(base + "/none.csv")

    # The CSV replaced on the server: an opening finds the index stale.
    with open(plain.path, "r+b") as f:
        f.write(b"X")
    with pytest.raises(csvidx.CsvIdxError, match="stale"):
        csvidx.Index(url)
