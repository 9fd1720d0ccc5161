"""build, update, compact and verify from Python, and errors as CsvIdxError
with the CLI's facts and the fix in Python's words."""

import csv
import io
import os
import warnings

import pytest
from pandas.testing import assert_frame_equal

import csvidx
from conftest import cli_error


def append(path, rows):
    s = io.StringIO()
    csv.writer(s, lineterminator="\n").writerows(rows)
    data = s.getvalue().encode()
    with open(path, "ab") as f:
        f.write(data)
    return data


def test_update_compact_verify_after_appending(orders):
    path = orders.path
    old = csvidx.Index(path)
    assert old.bytes_behind == 0
    before = old.get_bytes("7")
    new_rows = [["9001", "7", "1.00", "appended"], ["9002", "brand new", "2.00", 'with "quotes"\nand a newline']]
    data = append(path, new_rows)

    with pytest.warns(csvidx.CsvIdxWarning, match=f"{len(data)} bytes at the end of .* are not indexed"):
        stale_view = csvidx.Index(path)
    assert stale_view.bytes_behind == len(data)
    assert stale_view.get_bytes("7") == before and stale_view.count("brand new") == 0
    stale_view.close()

    r = csvidx.update(path, no_compact=True)
    assert r["action"] == "tail" and r["new_bytes"] == len(data)
    assert r["info"]["tail"]["rows"] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: nothing is behind
        idx = csvidx.Index(path)
    assert idx.bytes_behind == 0
    assert idx.get_bytes("7") == before + data.split(b"\n", 1)[0] + b"\n"
    assert idx.count(["7", "brand new"]) == {"7": orders.count("7") + 1, "brand new": 1}
    got = idx.get("brand new")
    assert got["comment"][0] == 'with "quotes"\nand a newline' and got["order_id"][0] == 9002
    # The Index opened before keeps its snapshot.
    assert old.get_bytes("7") == before
    old.close()

    v = csvidx.verify(path)
    assert v and v.equal and v.differences == [] and v.bytes_behind == 0

    info = csvidx.compact(path)
    assert "tail" not in info and info["rows"] == len(orders.rows) + 2
    assert csvidx.verify(path)
    with csvidx.Index(path) as after:
        assert_frame_equal(after.get(["7", "brand new"]), idx.get(["7", "brand new"]))
    idx.close()
    assert csvidx.update(path)["action"] == "none"


def test_update_compacts_by_itself(orders):
    append(orders.path, [[str(20000 + i), str(i % 40), "1.5", "bulk"] for i in range(2 * len(orders.rows))])
    r = csvidx.update(orders.path)
    assert r["action"] == "compact" and "tail" not in r["info"]
    assert csvidx.verify(orders.path, threads=1, mem_limit_mib=1)


def test_verify_reports_a_corrupt_index(orders):
    idx_path = orders.path + ".csvidx"
    with open(idx_path, "r+b") as f:
        f.seek(os.path.getsize(idx_path) // 2)
        b = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([b[0] ^ 0xFF]))
    v = csvidx.verify(orders.path)
    assert not v and v.equal is False and len(v.differences) >= 1


def test_index_path_and_build_options(tmp_path, orders):
    other = str(tmp_path / "elsewhere.idx")
    info = csvidx.build(orders.path, key=1, index_path=other, threads=1, mem_limit_mib=1, tmp_dir=str(tmp_path))
    assert info["index"] == other and info["key_column"] == 1
    with csvidx.Index(orders.path, index_path=other) as idx:
        assert idx.get_bytes("a,b") == orders.raw(["a,b"])
    assert csvidx.verify(orders.path, index_path=other)
    assert csvidx.update(orders.path, index_path=other)["action"] == "none"


def facts_and_fix(msg):
    """A message split into what is wrong and the fix that ends it, as the
    CLI (a command line) or Python (a call) words it."""
    for fix in ("; run csvidx build ", "; call csvidx.build(", "; try again when it is done, "):
        if fix in msg:
            i = msg.index(fix)
            return msg[:i], msg[i + 2:]
    raise AssertionError(f"no fix in {msg!r}")


def test_errors_carry_the_clis_messages(cli, tmp_path, orders):
    """The facts are the CLI's, word for word; the fix is worded as a call
    to csvidx, with the options the index was built with."""
    missing = str(tmp_path / "missing.csv")
    open(missing, "w").close()
    with pytest.raises(csvidx.CsvIdxError) as e:
        csvidx.Index(missing)
    facts, fix = facts_and_fix(str(e.value))
    cli_facts, cli_fix = facts_and_fix(cli_error(cli, "get", missing, "1"))
    assert facts == cli_facts and facts.startswith("no index for ")
    assert fix == f"call csvidx.build({missing!r}, key=COLUMN)"
    assert cli_fix.startswith("run csvidx build ")

    with pytest.raises(csvidx.CsvIdxError) as e:
        csvidx.build(orders.path, key="no such column")
    assert str(e.value) == cli_error(cli, "build", orders.path, "--key", "no such column")

    # The CLI names its options by their flags, Python by its keywords;
    # the rest of the message is the same.
    for kwargs, flags in [({"mem_limit_mib": 0}, ["--mem-limit-mib", "0"]), ({"threads": -1}, ["--threads", "-1"]),
                          ({"delimiter": ";;"}, ["--delimiter", ";;"])]:
        with pytest.raises(csvidx.CsvIdxError) as e:
            csvidx.build(orders.path, key="user_id", **kwargs)
        (name, value), = kwargs.items()
        shown = f'"{value}"' if isinstance(value, str) else str(value)
        said, why = str(e.value).split(": ", 1)
        cli_said, cli_why = cli_error(cli, "build", orders.path, "--key", "user_id", *flags).split(": ", 1)
        assert (said, cli_said) == (f"{name}={shown}", f"{flags[0]} {shown}")
        assert why == cli_why

    for call, args in [(csvidx.verify, ["verify", missing]), (csvidx.update, ["update", missing]),
                       (csvidx.compact, ["compact", missing])]:
        with pytest.raises(csvidx.CsvIdxError) as e:
            call(missing)
        assert facts_and_fix(str(e.value)) == (cli_facts, fix)
        assert facts_and_fix(cli_error(cli, *args)) == (cli_facts, cli_fix)

    # Stale: the CSV shrank since it was indexed.
    with open(orders.path, "r+b") as f:
        f.truncate(os.path.getsize(orders.path) - 10)
    with pytest.raises(csvidx.CsvIdxError, match="stale") as e:
        csvidx.Index(orders.path)
    facts, fix = facts_and_fix(str(e.value))
    assert facts == facts_and_fix(cli_error(cli, "get", orders.path, "7"))[0]
    assert fix == f"call csvidx.build({orders.path!r}, key='user_id')"
    with pytest.raises(csvidx.CsvIdxError) as e:
        csvidx.update(orders.path)
    assert facts_and_fix(str(e.value)) == (facts, fix)
    assert facts_and_fix(cli_error(cli, "update", orders.path)) == (facts, "run csvidx build " + orders.path + " --key user_id")
    eval(fix[len("call "):], {"csvidx": csvidx})  # pylint: disable=eval-used  # the call it names repairs the index
    csvidx.Index(orders.path).close()

    # Not an index at all.
    with open(orders.path + ".csvidx", "wb") as f:
        f.write(b"this is not an index" * 100)
    with pytest.raises(csvidx.CsvIdxError) as e:
        csvidx.Index(orders.path)
    facts, fix = facts_and_fix(str(e.value))
    assert facts == facts_and_fix(cli_error(cli, "get", orders.path, "7"))[0]
    assert fix == f"call csvidx.build({orders.path!r}, key=COLUMN)"


def test_fix_keeps_the_options(cli, tmp_path):
    """An index built without a header, on a tab-separated file, is rebuilt
    with the same options: the call in the message says them."""
    path = str(tmp_path / "events.tsv")
    with open(path, "w") as f:
        f.write("1\ta\n2\tb\n3\ta\n")
    csvidx.build(path, key=1, no_header=True, delimiter="\t")
    with open(path, "r+b") as f:
        f.truncate(5)
    with pytest.raises(csvidx.CsvIdxError) as e:
        csvidx.Index(path)
    facts, fix = facts_and_fix(str(e.value))
    cli_facts, cli_fix = facts_and_fix(cli_error(cli, "get", path, "a"))
    assert facts == cli_facts
    assert fix == f"call csvidx.build({path!r}, key=1, no_header=True, delimiter='\\t')"
    assert cli_fix == f"run csvidx build {path} --key 1 --no-header --delimiter '\\t'"
    eval(fix[len("call "):], {"csvidx": csvidx})  # pylint: disable=eval-used
    with csvidx.Index(path) as idx:
        assert idx.get_bytes("a") == b"1\ta\n"


def test_locked(cli, orders):
    """A writer told not to wait, while another holds the lock: the facts
    are the CLI's, and the way to wait is Python's keyword."""
    fcntl = pytest.importorskip("fcntl")
    with open(orders.path + ".csvidx.lock", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(csvidx.CsvIdxError) as e:
            csvidx.build(orders.path, key="user_id", no_wait=True)
        facts, fix = facts_and_fix(str(e.value))
        cli_facts, cli_fix = facts_and_fix(cli_error(cli, "update", orders.path, "--no-wait"))
    assert facts == cli_facts and "is locked" in facts
    assert fix == "try again when it is done, or pass no_wait=False to wait"
    assert cli_fix == "try again when it is done, or leave out --no-wait to wait"


def test_stale_while_open(orders):
    """A CSV rewritten shorter under an open Index: lookups fail cleanly."""
    idx = csvidx.Index(orders.path)
    with open(orders.path, "r+b") as f:
        f.truncate(100)
    with pytest.raises(csvidx.CsvIdxError):
        idx.get_bytes([str(u) for u in range(50)])
    idx.close()


def test_argument_types(orders):
    with pytest.raises(TypeError):
        csvidx.build(orders.path, key=1.5)
    with pytest.raises(TypeError):
        csvidx.build(orders.path, key="user_id", threads="2")
    with pytest.raises(TypeError):
        csvidx.build(orders.path, key="user_id", mem_limit_mib=True)
    with pytest.raises(ValueError, match="null byte"):
        csvidx.Index(orders.path + "\0x")
