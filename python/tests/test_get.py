"""Index.get, get_bytes and count against pandas.read_csv + a filter."""

import csv

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import csvidx
from conftest import NASTY_KEYS, CSVFile, expected_frame

AS_TEXT = {"dtype": str, "keep_default_na": False}  # every value as its exact text


def test_nasty_keys_one_by_one(orders):
    with csvidx.Index(orders.path) as idx:
        for key in NASTY_KEYS:
            got = idx.get(key, **AS_TEXT)
            assert len(got) == orders.count(key) > 0, key
            assert_frame_equal(got, expected_frame(orders, [key], **AS_TEXT))
            assert list(got["user_id"]) == [key] * len(got)


def test_many_keys_file_order_each_row_once(orders):
    keys = ["7", "a,b", "007", "7", "absent", "", "line\nbreak", "a,b"]
    with csvidx.Index(orders.path) as idx:
        got = idx.get(keys, **AS_TEXT)
        assert_frame_equal(got, expected_frame(orders, keys, **AS_TEXT))
        assert list(got["order_id"]) == sorted(got["order_id"], key=int)  # file order
        assert idx.get_bytes(keys) == orders.raw(keys)


def test_default_typing_is_read_csvs(orders):
    """Without kwargs the frame is typed by read_csv: numbers as numbers,
    the key column as text, NA handling as pandas does it."""
    with csvidx.Index(orders.path) as idx:
        keys = ["7", "007", "3", "NA", ""]
        got = idx.get(keys)
        want = expected_frame(orders, keys, dtype={"user_id": str})
        assert_frame_equal(got, want)
        assert got["order_id"].dtype == np.int64
        assert got["amount"].dtype == np.float64
        assert got["user_id"].dtype == object
        assert "007" in set(got["user_id"]) and "7" in set(got["user_id"])
        # The key's dtype can be overridden, other kwargs pass through.
        got = idx.get("3", dtype={"user_id": "int64"}, usecols=["order_id", "user_id"])
        assert got["user_id"].dtype == np.int64 and list(got.columns) == ["order_id", "user_id"]
        got = idx.get("3", dtype={"amount": "float32"})
        assert got["amount"].dtype == np.float32 and got["user_id"].dtype == object


def test_int_str_bytes_keys(orders):
    with csvidx.Index(orders.path) as idx:
        want = idx.get_bytes("7")
        assert want == orders.raw(["7"]) and b"007" not in want.split(b",")[1]
        for k in (7, "7", b"7", bytearray(b"7"), np.int64(7), np.str_("7")):
            assert idx.get_bytes(k) == want, k
            assert_frame_equal(idx.get(k), idx.get("7"))
        assert idx.get_bytes([7, b"007"]) == orders.raw(["7", "007"])
        assert idx.get_bytes("ключ🙂".encode()) == orders.raw(["ключ🙂"])
        assert idx.get_bytes(np.array([7, 3])) == orders.raw(["7", "3"])
        assert idx.get_bytes(pd.Series(["a,b", "7"])) == orders.raw(["a,b", "7"])
        assert idx.get_bytes((k for k in ["3", "4"])) == orders.raw(["3", "4"])


@pytest.mark.parametrize("bad", [7.0, True, False, None, np.float64(7), np.bool_(True), object(), 1 + 2j])
def test_bad_keys_raise_type_error(orders, bad):
    with csvidx.Index(orders.path) as idx:
        with pytest.raises(TypeError, match="keys are str, bytes or int"):
            idx.get(bad)
        with pytest.raises(TypeError, match="keys are str, bytes or int"):
            idx.get_bytes(["7", bad])
        with pytest.raises(TypeError, match="keys are str, bytes or int"):
            idx.count([bad])


def test_empty_results_have_the_columns(orders):
    with csvidx.Index(orders.path) as idx:
        for keys in ("absent", [], ["absent", "also absent"]):
            got = idx.get(keys)
            assert list(got.columns) == ["order_id", "user_id", "amount", "comment"]
            assert len(got) == 0
            assert idx.get_bytes(keys) == b""
        got = idx.get("absent", dtype={"amount": "float64"}, usecols=["user_id", "amount"])
        assert list(got.columns) == ["user_id", "amount"] and got["amount"].dtype == np.float64


def test_get_bytes_and_count(orders):
    with csvidx.Index(orders.path) as idx:
        for key in NASTY_KEYS:
            assert idx.get_bytes(key) == orders.raw([key])
            assert idx.count(key) == orders.count(key)
        got = idx.count(["7", 7, b"7", "absent", "7", "a,b", bytearray(b"")])
        n7 = orders.count("7")
        assert n7 == 8  # 4 nasty rows, 3 plain ones, 1 more
        assert got == {"7": n7, 7: n7, b"7": n7, "absent": 0, "a,b": 4, b"": 4}
        assert list(got) == ["7", 7, b"7", "absent", "a,b", b""]  # request order, each key once
        assert idx.count([]) == {}


def test_crlf_bom_quote_all(tmp_path):
    rows = [[str(i), k, "x\r\ny" if i % 3 else "plain"] for i, k in enumerate(NASTY_KEYS * 3)]
    f = CSVFile(tmp_path / "crlf.csv", ["id", "key", "note"], rows, key_col=1, lineterminator="\r\n",
                quoting=csv.QUOTE_ALL, bom=True)
    csvidx.build(f.path, key="key")
    with csvidx.Index(f.path) as idx:
        assert idx.header == b'"id","key","note"\r\n'  # verbatim, without the BOM
        for key in NASTY_KEYS:
            assert idx.get_bytes(key) == f.raw([key]), key
            got = idx.get(key, **AS_TEXT)
            assert_frame_equal(got, expected_frame(f, [key], **AS_TEXT))
            assert list(got.columns) == ["id", "key", "note"]


def test_headerless_tsv(tmp_path):
    rows = [[str(i), k, str(i * 10)] for i, k in enumerate(NASTY_KEYS * 2)]
    f = CSVFile(tmp_path / "plain.tsv", None, rows, key_col=1, delimiter="\t")
    csvidx.build(f.path, key=1, no_header=True, delimiter="\t")
    with csvidx.Index(f.path) as idx:
        assert idx.header is None
        for key in NASTY_KEYS:
            if "\t" in key:
                continue  # the TSV writer quotes it; pandas agrees, but keep the case simple
            got = idx.get(key, **AS_TEXT)
            assert_frame_equal(got, expected_frame(f, [key], **AS_TEXT))
            assert list(got.columns) == [0, 1, 2]
        got = idx.get(["007", "7"])
        assert got[1].dtype == object and got[0].dtype == np.int64  # the key column is text
        assert_frame_equal(got, expected_frame(f, ["007", "7"], dtype={1: str}))
        empty = idx.get("absent")
        assert list(empty.columns) == [0, 1, 2] and len(empty) == 0
        empty = idx.get("absent", names=["a", "b", "c"], dtype={"c": "int64"})
        assert list(empty.columns) == ["a", "b", "c"] and empty["c"].dtype == np.int64


@pytest.mark.parametrize("no_header", [True, False])
def test_empty_file(tmp_path, no_header):
    p = tmp_path / "empty.csv"
    p.write_bytes(b"")
    csvidx.build(str(p), key=0, no_header=no_header)
    with csvidx.Index(p) as idx:
        got = idx.get("x")
        assert len(got) == 0 and len(got.columns) == 0 and idx.get_bytes("x") == b""


def test_read_csv_kwargs_pass_through(orders):
    with csvidx.Index(orders.path) as idx:
        got = idx.get("3", index_col="order_id")
        assert got.index.name == "order_id" and len(got) == 3
        got = idx.get("3", dtype=str)  # one dtype for every column, the key's included
        assert all(got[c].dtype == object for c in got.columns)


def test_pathlike_and_repr(orders, tmp_path):
    import pathlib  # pylint: disable=import-outside-toplevel
    idx = csvidx.Index(pathlib.Path(orders.path))
    assert "open" in repr(idx) and not idx.closed
    assert idx.info["key_name"] == "user_id" and idx.info["rows"] == len(orders.rows)
    idx.close()
    idx.close()
    assert idx.closed and "closed" in repr(idx)
    with pytest.raises(csvidx.CsvIdxError, match="is closed"):
        idx.get_bytes("7")


def test_merge_with_an_int_column(orders):
    """The key column is text: merging it with an int column raises, and
    the documented ways out (dtype= on the way in, astype after) work."""
    users = pd.DataFrame({"user_id": [7, 3], "name": ["seven", "three"]})
    with csvidx.Index(orders.path) as idx:
        keys = users.user_id
        with pytest.raises(ValueError):
            idx.get(keys).merge(users, on="user_id")
        typed = idx.get(keys, dtype={"user_id": "int64"}).merge(users, on="user_id")
        cast = idx.get(keys).astype({"user_id": "int64"}).merge(users, on="user_id")
    want = orders.count("7") + orders.count("3")
    assert len(typed) == len(cast) == want > 0
    assert set(typed["name"]) == {"seven", "three"}
