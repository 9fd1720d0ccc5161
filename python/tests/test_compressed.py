"""Compressed CSVs from Python (issue 40): the binding reads BGZF and zstd
files in frames as the plain file they decompress to, for get, count,
info, verify, update, compact and join's right file; the oracle is the
plain file, written by Python's csv module, and gzip -dc / zstd -dc."""

import os
import shutil
import subprocess

import pytest

import csvidx

from conftest import ORDER_ROWS, CSVFile

COMPRESSORS = {
    "bgzf": (["bgzip", "-c"], ".csv.gz"),
    "pzstd": (["pzstd", "-q", "-p", "2", "-c"], ".csv.zst"),
    "gzip": (["gzip", "-c"], ".csv.gz"),
}


def compress(tool, plain, out):
    cmd, _ = COMPRESSORS[tool]
    if shutil.which(cmd[0]) is None:
        if os.environ.get("CSVIDX_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{cmd[0]} is not installed")
        pytest.skip(f"{cmd[0]} is not installed")
    with open(out, "ab") as f:
        subprocess.run(cmd + [plain], stdout=f, check=True)


@pytest.mark.parametrize("tool", sorted(COMPRESSORS))
def test_compressed_reads_as_plain(tmp_path, tool):
    header = ["order_id", "user_id", "amount", "comment"]
    half = len(ORDER_ROWS) // 2
    plain = CSVFile(tmp_path / "orders.csv", header, ORDER_ROWS[:half], key_col=1)
    more = CSVFile(tmp_path / "more.csv", None, ORDER_ROWS[half:], key_col=1)
    comp = str(tmp_path / ("orders" + COMPRESSORS[tool][1]))
    compress(tool, plain.path, comp)
    csvidx.build(comp, key="user_id")
    csvidx.build(plain.path, key="user_id")
    keys = sorted({r[1] for r in ORDER_ROWS})

    def same():
        with csvidx.Index(comp) as c, csvidx.Index(plain.path) as p:
            assert c.bytes_behind == 0
            for k in keys:
                assert c.get_bytes(k) == p.get_bytes(k), k
            assert c.count(keys) == p.count(keys)
            assert c.header == p.header
            assert c.get(keys[:5]).equals(p.get(keys[:5]))
        info = csvidx.Index(comp).info
        assert info["compression"] in ("bgzf", "zstd", "gzip") and info["file_bytes"] == os.path.getsize(comp)
        assert csvidx.verify(comp)

    same()
    # Rows appended as a compressed file of their own: update reads only them.
    compress(tool, more.path, comp)
    with open(plain.path, "ab") as f, open(more.path, "rb") as m:
        f.write(m.read())
    with pytest.warns(csvidx.CsvIdxWarning, match="not indexed"):
        csvidx.Index(comp).close()
    assert csvidx.update(comp, no_compact=True)["action"] == "tail"
    assert csvidx.update(plain.path, no_compact=True)["action"] == "tail"
    same()
    csvidx.compact(comp)
    same()

    # join with the compressed file as the right one: the plain file's join.
    left = CSVFile(tmp_path / "left.csv", ["user_id", "n"], [[k, str(i)] for i, k in enumerate(keys)], key_col=0)
    for how in ("inner", "left", "right", "full", "semi", "anti"):
        outs = []
        for right in (comp, plain.path):
            out = str(tmp_path / f"out-{how}-{len(outs)}.csv")
            csvidx.join(left.path, right, "user_id", out, how=how)
            with open(out, "rb") as f:
                outs.append(f.read())
        assert outs[0] == outs[1], how


def test_gzip_span(tmp_path):
    """gzip_span_kib puts the checkpoints of a plain gzip file's index
    closer: more of them, the same rows; a span out of range is refused."""
    rows = [[str(i), f"u{i % 97}", f"{i * 1.5:.2f}", "x" * (i % 50)] for i in range(20000)]
    plain = CSVFile(tmp_path / "orders.csv", ["order_id", "user_id", "amount", "comment"], rows, key_col=1)
    comp = str(tmp_path / "orders.csv.gz")
    compress("gzip", plain.path, comp)
    other = str(tmp_path / "other.csv.gz")
    compress("gzip", plain.path, other)
    small = csvidx.build(comp, key="user_id", gzip_span_kib=16)
    default = csvidx.build(other, key="user_id")
    assert small["table_bytes"] > 5 * default["table_bytes"]
    csvidx.build(plain.path, key="user_id")
    with csvidx.Index(comp) as c, csvidx.Index(plain.path) as p:
        for k in ("u1", "u42", "u96"):
            assert c.get_bytes(k) == p.get_bytes(k)
    assert csvidx.verify(comp)
    with pytest.raises(csvidx.CsvIdxError, match="gzip_span_kib=0"):
        csvidx.build(comp, key="user_id", gzip_span_kib=0)
