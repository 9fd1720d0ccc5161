"""Several indexes per CSV, and composite keys (issue 29), from Python.

The oracle is the CSV's rows as Python's csv module wrote them (conftest's
CSVFile): a composite key matches a row when each of its fields equals the
row's field at that column.
"""

import os

import pytest

import csvidx

from conftest import NASTY_KEYS, CSVFile

PAIRS = [(u, s) for u in NASTY_KEYS[:6] for s in ("shipped", "a,b", 'q"x', "line\nbreak")]
ROWS = [[str(i), u, s, f"note {i}"] for i, (u, s) in enumerate(PAIRS * 3)] + [["999", "short"]]


@pytest.fixture
def orders3(tmp_path):
    """An orders CSV indexed three ways in one build."""
    f = CSVFile(tmp_path / "o.csv", ["order_id", "user_id", "status", "note"], ROWS, key_col=1)
    infos = csvidx.build(f.path, key=["order_id", "user_id", ("user_id", "status")])
    assert [os.path.basename(i["index"]) for i in infos] == ["o.csv.csvidx", "o.csv.by-1.csvidx",
                                                               "o.csv.by-1-2.csvidx"]
    return f


def rows_with(f, want):
    """The raw bytes of the rows whose fields at the columns of want (a dict
    column: value) all equal its values, in file order."""
    return b"".join(raw for fields, raw in f.rows
                    if all(c < len(fields) and fields[c] == v for c, v in want.items()))


def test_composite_lookups_by_tuple_and_record(orders3):
    f = orders3
    with csvidx.Index(f.path, by=("user_id", "status")) as idx:
        for u, s in PAIRS:
            want = rows_with(f, {1: u, 2: s})
            assert idx.get_bytes((u, s)) == want, (u, s)
            assert idx.count((u, s)) == 3
        # A list of tuples is several keys; a record in the file's dialect
        # is a key too.
        two = [("7", "shipped"), ("", "a,b")]
        assert idx.get_bytes(two) == b"".join(raw for fields, raw in f.rows
                                              if len(fields) > 2 and (fields[1], fields[2]) in two)
        assert idx.get_bytes('"a,b",shipped') == rows_with(f, {1: "a,b", 2: "shipped"})
        assert idx.count([('x"y', "shipped"), ("7", "shipped")]) == {('x"y', "shipped"): 3, ("7", "shipped"): 0}
        df = idx.get(("ключ🙂", 'q"x'))
        assert list(df["user_id"]) == ["ключ🙂"] * 3 and list(df["status"]) == ['q"x'] * 3
        with pytest.raises(csvidx.CsvIdxError, match="has 3 fields; the index's key has 2 columns"):
            idx.get_bytes(("a", "b", "c"))


def test_several_keys_in_order(orders3):
    f = orders3
    both = [("7", "shipped"), ("", "line\nbreak")]
    with csvidx.Index(f.path, by="user_id,status") as idx:
        got = idx.get_bytes(both)
    want = b"".join(raw for fields, raw in f.rows if len(fields) > 2 and (fields[1], fields[2]) in both)
    assert got == want


def test_by_picks_the_index(orders3):
    f = orders3
    with csvidx.Index(f.path, by="order_id") as idx:
        assert idx.get_bytes("999") == rows_with(f, {0: "999"})
    with csvidx.Index(f.path, by=1) as idx:
        assert idx.get_bytes("7") == rows_with(f, {1: "7"})
        assert idx.count("a,b") == len(PAIRS) // 6 * 3  # one column: a,b is the key a,b
    with pytest.raises(csvidx.CsvIdxError, match='no index by "status"'):
        csvidx.Index(f.path, by="status")


def test_first_index_stays_the_default(tmp_path):
    f = CSVFile(tmp_path / "orders.csv", ["order_id", "user_id", "status", "note"], ROWS, key_col=0)
    csvidx.build(f.path, key="order_id")
    with csvidx.Index(f.path) as idx:
        want = idx.get_bytes("999")
    assert want == rows_with(f, {0: "999"})
    csvidx.build(f.path, key=["user_id", ("user_id", "status")])  # adding indexes breaks nothing
    with csvidx.Index(f.path) as idx:
        assert idx.get_bytes("999") == want
        assert idx.info["default"] is True
    with csvidx.Index(f.path, by="user_id") as idx:
        assert idx.info["default"] is False
    # Indexes all at by- names: several of them need by, and the error lists them.
    os.rename(f.path + ".csvidx", f.path + ".by-0.csvidx")
    os.rename(f.path + ".csvidx.fence", f.path + ".by-0.csvidx.fence")
    with pytest.raises(csvidx.CsvIdxError, match=r"several indexes: .* has 3 indexes \(by order_id .*with by=\.\.\."):
        csvidx.Index(f.path)


def test_update_compact_verify_every_index(orders3):
    f = orders3
    with open(f.path, "ab") as out:
        out.write(b'1000,"x""y",shipped,late\n1001,"a,b",new,x\n')
    results = csvidx.update(f.path, no_compact=True)
    assert [r["action"] for r in results] == ["tail"] * 3
    assert [os.path.basename(r["path"]) for r in results] == ["o.csv.csvidx", "o.csv.by-1.csvidx",
                                                               "o.csv.by-1-2.csvidx"]
    assert [r["info"]["tail"]["rows"] for r in results] == [2] * 3
    with csvidx.Index(f.path, by=("user_id", "status")) as idx:
        assert idx.count(('x"y', "shipped")) == 4
        assert idx.get_bytes(("a,b", "new")) == b'1001,"a,b",new,x\n'
    with csvidx.Index(f.path, by="order_id") as idx:
        assert idx.get_bytes("1001") == b'1001,"a,b",new,x\n'
    assert csvidx.verify(f.path)
    infos = csvidx.compact(f.path)
    assert len(infos) == 3 and all(i.get("tail") is None for i in infos)
    assert not os.path.exists(f.path + ".by-1.csvidx.tail")
    r = csvidx.verify(f.path, by="user_id")
    assert r.equal and r.bytes_behind == 0


def test_verify_names_the_index_that_differs(orders3):
    f = orders3
    with open(f.path + ".by-1.csvidx", "r+b") as idx:  # a record page of one index
        idx.seek(4096 + 40)
        b = idx.read(1)
        idx.seek(4096 + 40)
        idx.write(bytes([b[0] ^ 0x5A]))
    r = csvidx.verify(f.path)
    assert not r.equal and r.differences
    assert all(d.startswith("o.csv.by-1.csvidx") for d in r.differences)
    assert csvidx.verify(f.path, by="order_id") and csvidx.verify(f.path, by=("user_id", "status"))
    assert not csvidx.verify(f.path, by="user_id")


def test_one_index_needs_no_by(tmp_path):
    f = CSVFile(tmp_path / "one.csv", ["a", "b"], [["1", "x"], ["2", "y"]], key_col=0)
    info = csvidx.build(f.path, key=("a", "b"))
    assert info["key_columns"] == [0, 1]
    with csvidx.Index(f.path) as idx:
        assert idx.get_bytes(("2", "y")) == b"2,y\n"
    assert csvidx.build(f.path, key=["b"])[0]["index"].endswith("one.csv.by-1.csvidx")


def test_key_spec_types(tmp_path):
    f = CSVFile(tmp_path / "k.csv", ["a,b", "c"], [["1", "x"]], key_col=0)
    csvidx.build(f.path, key=("a,b", 1))  # a name with a comma is quoted into the spec
    with csvidx.Index(f.path) as idx:
        assert idx.get_bytes(("1", "x")) == b"1,x\n"
    for bad in [(), 1.5, True, None]:
        with pytest.raises(TypeError):
            csvidx.build(f.path, key=bad)
