"""The index directory from Python (issue 38, C11): index_dir=, or
CSVIDX_INDEX_DIR read at each call, finds and writes a CSV's indexes where
the CLI's --index-dir and CSVIDX_INDEX_DIR do; index_dir="" means next to
the CSV, and index_path wins over both."""

import os
import re
import subprocess

import pytest

import csvidx
from conftest import ORDER_ROWS, CSVFile, cli_error

ENV = "CSVIDX_INDEX_DIR"
HEADER = ["order_id", "user_id", "amount", "comment"]
# orders.csv.HASH, then .csvidx and the like (see index/home.go)
NAME = re.compile(r"^(orders\.csv\.[0-9a-f]{16})(\..*)$")


@pytest.fixture
def two(tmp_path):
    """Two CSVs named orders.csv in two directories, with different rows for
    the same keys, and an empty index directory (CSVIDX_INDEX_DIR is unset:
    see conftest.py)."""
    for d in ("d1", "d2", "idx"):
        (tmp_path / d).mkdir()
    a = CSVFile(tmp_path / "d1" / "orders.csv", HEADER, ORDER_ROWS, key_col=1)
    b = CSVFile(tmp_path / "d2" / "orders.csv", HEADER, [r[:3] + ["second file"] for r in ORDER_ROWS[::2]], key_col=1)
    return a, b, str(tmp_path / "idx")


def index_files(d):
    """The names in d, each split as (stem, what follows it)."""
    out = []
    for name in sorted(os.listdir(d)):
        m = NAME.match(name)
        assert m, name
        out.append(m.groups())
    return out


def run_cli(cli, *args, env=None):
    p = subprocess.run([cli, *args], capture_output=True, check=False,
                       env={**os.environ, **(env or {})})
    assert p.returncode == 0, (p.returncode, p.stderr)
    return p.stdout


def test_finds_the_clis_index(cli, two, monkeypatch):
    """An index the CLI built with CSVIDX_INDEX_DIR set is found with the
    variable set (read at the call, not at import) and with index_dir."""
    a, _, idx = two
    run_cli(cli, "build", a.path, "--key", "user_id", "-q", env={ENV: idx})
    assert os.listdir(os.path.dirname(a.path)) == ["orders.csv"]
    (stem, _), *_ = index_files(idx)

    with pytest.raises(csvidx.CsvIdxError, match=r"^no index for .*d1/orders\.csv: .*d1/orders\.csv\.csvidx does not"):
        csvidx.Index(a.path)  # not looked for in idx without being told
    with csvidx.Index(a.path, index_dir=idx) as ix:
        assert ix.get_bytes("a,b") == a.raw(["a,b"])
        assert ix.info["index"] == os.path.join(idx, stem + ".csvidx") and ix.info["default"]
    monkeypatch.setenv(ENV, idx)
    with csvidx.Index(a.path) as ix:
        assert ix.get_bytes(["007", "7"]) == a.raw(["007", "7"])
    # The name is the absolute path's: the CSV by a relative path finds it.
    monkeypatch.chdir(os.path.dirname(a.path))
    with csvidx.Index("orders.csv") as ix:
        assert ix.count("7") == a.count("7")


def test_empty_index_dir_means_next_to_the_csv(two, monkeypatch):
    a, _, idx = two
    csvidx.build(a.path, key="user_id", index_dir=idx)
    monkeypatch.setenv(ENV, idx)
    with pytest.raises(csvidx.CsvIdxError, match=r"orders\.csv\.csvidx does not exist"):
        csvidx.Index(a.path, index_dir="")
    info = csvidx.build(a.path, key="order_id", index_dir="")
    assert info["index"] == a.path + ".csvidx"
    with csvidx.Index(a.path, index_dir="") as ix:
        assert ix.info["key_name"] == "order_id"
    with csvidx.Index(a.path) as ix:  # the variable's, untouched
        assert ix.info["key_name"] == "user_id"
    # The keyword wins over the variable.
    monkeypatch.setenv(ENV, os.path.join(idx, "nope"))
    with csvidx.Index(a.path, index_dir=idx) as ix:
        assert ix.info["key_name"] == "user_id"


def test_index_path_wins(two, tmp_path, monkeypatch):
    """index_path names the index; a bad index directory is then not even
    looked at, from the keyword or the variable."""
    a, _, idx = two
    p = str(tmp_path / "elsewhere.idx")
    nope = str(tmp_path / "nope")
    monkeypatch.setenv(ENV, nope)
    assert csvidx.build(a.path, key="user_id", index_path=p)["index"] == p
    for kw in ({}, {"index_dir": nope}, {"index_dir": idx}):
        with csvidx.Index(a.path, index_path=p, **kw) as ix:
            assert ix.get_bytes("NA") == a.raw(["NA"])
        assert csvidx.update(a.path, index_path=p, **kw)["action"] == "none"
        assert csvidx.verify(a.path, index_path=p, **kw)
        assert csvidx.compact(a.path, index_path=p, **kw)["index"] == p
    assert os.listdir(idx) == [] and os.listdir(os.path.dirname(a.path)) == ["orders.csv"]


def test_two_csvs_of_one_name(cli, two, monkeypatch):
    """Two orders.csv in two directories keep apart in one index directory,
    under the names the CLI gives them."""
    a, b, idx = two
    csvidx.build(a.path, key=["user_id", "order_id"], index_dir=idx)
    monkeypatch.setenv(ENV, idx)
    csvidx.build(b.path, key="user_id")
    files = index_files(idx)
    stems = sorted({s for s, _ in files})
    assert len(stems) == 2
    assert sorted(rest for _, rest in files if not rest.endswith(".fence")) == sorted(
        [".csvidx", ".csvidx", ".csvidx.lock", ".csvidx.lock", ".by-0.csvidx"]), files
    for d in (a, b):
        assert os.listdir(os.path.dirname(d.path)) == ["orders.csv"]
        with csvidx.Index(d.path) as ix:
            assert ix.get_bytes(["7", "a,b", ""]) == d.raw(["7", "a,b", ""])
        # The CLI finds what Python built, by the same names.
        assert run_cli(cli, "get", d.path, "7", env={ENV: idx}) == d.raw(["7"])
    with csvidx.Index(a.path, by="order_id") as ix:
        assert ix.get_bytes("1000") == a.rows[0][1]


def test_maintenance_in_the_index_dir(two, monkeypatch):
    """update, compact and verify act on the indexes in the index directory,
    each of a file's several."""
    a, _, idx = two
    csvidx.build(a.path, key=["user_id", "order_id"], index_dir=idx)
    with open(a.path, "ab") as f:
        f.write(b"9001,7,1.00,appended\n")
    with pytest.raises(csvidx.CsvIdxError, match="no index for"):
        csvidx.update(a.path)  # next to the CSV: none there
    rs = csvidx.update(a.path, no_compact=True, index_dir=idx)
    assert [r["action"] for r in rs] == ["tail", "tail"] and all(r["path"].startswith(idx) for r in rs)
    monkeypatch.setenv(ENV, idx)
    with csvidx.Index(a.path, by="order_id") as ix:
        assert ix.get_bytes("9001") == b"9001,7,1.00,appended\n"
    assert csvidx.verify(a.path)
    infos = csvidx.compact(a.path)
    assert len(infos) == 2 and all("tail" not in i and i["index"].startswith(idx) for i in infos)
    assert csvidx.verify(a.path, index_dir=idx, by="user_id")
    assert os.listdir(os.path.dirname(a.path)) == ["orders.csv"]


def test_a_bad_index_dir(cli, two, tmp_path, monkeypatch):
    """An index directory that is not there, or not a directory, is the
    CLI's error, naming the keyword where the CLI names its flag; nothing is
    written."""
    a, _, _ = two
    nope = str(tmp_path / "nope")
    out = str(tmp_path / "out.csv")
    calls = [(lambda **kw: csvidx.build(a.path, key="user_id", **kw), ["build", a.path, "--key", "user_id"]),
             (lambda **kw: csvidx.Index(a.path, **kw), ["get", a.path, "7"]),
             (lambda **kw: csvidx.update(a.path, **kw), ["update", a.path]),
             (lambda **kw: csvidx.compact(a.path, **kw), ["compact", a.path]),
             (lambda **kw: csvidx.verify(a.path, **kw), ["verify", a.path]),
             (lambda **kw: csvidx.join(a.path, a.path, "user_id", out, **kw),
              ["join", a.path, a.path, "--key", "user_id"])]
    for call, args in calls:
        cli_msg = cli_error(cli, *args, "--index-dir", nope)
        assert "(--index-dir, CSVIDX_INDEX_DIR)" in cli_msg
        want = cli_msg.replace("(--index-dir, ", "(index_dir, ")
        with pytest.raises(csvidx.CsvIdxError) as e:
            call(index_dir=nope)
        assert str(e.value) == want
        monkeypatch.setenv(ENV, nope)
        with pytest.raises(csvidx.CsvIdxError) as e:
            call()
        assert str(e.value) == want
        monkeypatch.delenv(ENV)
    with pytest.raises(csvidx.CsvIdxError, match=r"\(index_dir, CSVIDX_INDEX_DIR\): it is a regular file, not a dir"):
        csvidx.Index(a.path, index_dir=a.path)
    with pytest.raises(ValueError, match="null byte in index_dir"):
        csvidx.Index(a.path, index_dir="idx\0")
    with pytest.raises(TypeError):
        csvidx.build(a.path, key="user_id", index_dir=3)
    assert sorted(os.listdir(tmp_path)) == ["d1", "d2", "idx"]
