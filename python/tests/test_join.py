"""csvidx.join from Python (issue 30), against pandas' merge of the same
files read as text."""

import os

import pandas as pd
import pytest

import csvidx

from conftest import NASTY_KEYS, CSVFile

USERS = [[k, f"user {i}"] for i, k in enumerate(NASTY_KEYS[:8])] + [[NASTY_KEYS[0], "twin"]]
ORDERS = [[str(i), NASTY_KEYS[i % 10], f"note {i}"] for i in range(40)]


@pytest.fixture
def files(tmp_path):
    users = CSVFile(tmp_path / "users.csv", ["uid", "name"], USERS, key_col=0)
    orders = CSVFile(tmp_path / "orders.csv", ["oid", "uid", "note"], ORDERS, key_col=1)
    csvidx.build(users.path, key="uid")
    return orders, users, tmp_path


def read(path):
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def reference(how, left, right):
    """The rows a join must give, from the files as pandas reads them: a
    dict of lists over right, probed with each left row (an empty key
    matches nothing)."""
    by = {}
    for i, r in enumerate(right):
        by.setdefault(r[0], []).append(i)
    out, matched = [], set()
    for row in left:
        found = by.get(row[1], []) if row[1] != "" else []
        if how in ("semi", "anti"):
            if bool(found) == (how == "semi"):
                out.append(tuple(row))
            continue
        for i in found:
            matched.add(i)
            out.append(tuple(row + right[i]))
        if not found and how in ("left", "full"):
            out.append(tuple(row + ["", ""]))
    if how in ("right", "full"):
        out += [tuple(["", "", ""] + r) for i, r in enumerate(right) if i not in matched]
    return out


@pytest.mark.parametrize("how", ["inner", "left", "semi", "anti", "right", "full"])
def test_join_equals_reference(files, how):
    orders, users, tmp = files
    out = str(tmp / f"{how}.csv")
    rows = csvidx.join(orders.path, users.path, "uid", out, how=how, prefix_right="u.")
    got = read(out)
    want = reference(how, read(orders.path).values.tolist(), read(users.path).values.tolist())
    assert rows == len(got)
    assert list(map(tuple, got.values.tolist())) == want  # in LEFT's order, then RIGHT's
    header = open(out, encoding="utf-8").readline().rstrip("\n")
    assert header == ("oid,uid,note" if how in ("semi", "anti") else "oid,uid,note,u.uid,u.name")


def test_join_in_left_order_and_composite(files):
    orders, users, tmp = files
    csvidx.build(users.path, key=[("uid", "name")])
    out = str(tmp / "c.csv")
    n = csvidx.join(orders.path, users.path, ("uid", "note"), out, right_key=("uid", "name"))
    assert n == 0 and open(out, encoding="utf-8").read() == "oid,uid,note,uid,name\n"
    n = csvidx.join(orders.path, users.path, "uid", out, right_key="uid")
    got = read(out)
    assert n == len(got) and list(got["oid"]) == sorted(got["oid"], key=int)


def test_join_refuses_to_write_over_its_inputs(files):
    orders, users, _ = files
    before = open(users.path, "rb").read()
    with pytest.raises(csvidx.CsvIdxError, match="writes its output to another file"):
        csvidx.join(orders.path, users.path, "uid", users.path)
    assert open(users.path, "rb").read() == before
    with pytest.raises(csvidx.CsvIdxError, match="no index by"):
        csvidx.join(users.path, orders.path, "uid", users.path + ".out")
    assert not os.path.exists(users.path + ".out")
