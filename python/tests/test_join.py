"""csvidx.join from Python (issue 30), against pandas' merge of the same
files read as text."""

import os
import socket
import stat
import threading

import pandas as pd
import pytest

import csvidx

from conftest import NASTY_KEYS, CSVFile, cli_error

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
        matched.update(found)
        if how in ("semi", "anti"):
            if bool(found) == (how == "semi"):
                out.append(tuple(row))
            continue
        if how in ("right_semi", "right_anti"):
            continue
        for i in found:
            out.append(tuple(row + right[i]))
        if not found and how in ("left", "full"):
            out.append(tuple(row + ["", ""]))
    if how in ("right", "full"):
        out += [tuple(["", "", ""] + r) for i, r in enumerate(right) if i not in matched]
    if how in ("right_semi", "right_anti"):
        out += [tuple(r) for i, r in enumerate(right) if (i in matched) == (how == "right_semi")]
    return out


@pytest.mark.parametrize("how", ["inner", "left", "semi", "anti", "right", "full", "right_semi", "right_anti"])
def test_join_equals_reference(files, how):
    orders, users, tmp = files
    out = str(tmp / f"{how}.csv")
    rows = csvidx.join(orders.path, users.path, "uid", out, how=how, prefix_right="u.")
    got = read(out)
    want = reference(how, read(orders.path).values.tolist(), read(users.path).values.tolist())
    assert rows == len(got)
    assert list(map(tuple, got.values.tolist())) == want  # in LEFT's order, then RIGHT's
    header = open(out, encoding="utf-8").readline().rstrip("\n")
    want_header = {"semi": "oid,uid,note", "anti": "oid,uid,note", "right_semi": "uid,name", "right_anti": "uid,name"}
    assert header == want_header.get(how, "oid,uid,note,u.uid,u.name")
    if how in ("right_semi", "right_anti"):  # right's header and rows as written
        picked = {tuple(r) for r in want}
        raw = b"uid,name\n" + b"".join(b for fields, b in users.rows if tuple(fields) in picked)
        assert open(out, "rb").read() == raw


def test_join_in_left_order_and_composite(files):
    orders, users, tmp = files
    csvidx.build(users.path, key=[("uid", "name")])
    out = str(tmp / "c.csv")
    n = csvidx.join(orders.path, users.path, ("uid", "note"), out, right_key=("uid", "name"))
    assert n == 0 and open(out, encoding="utf-8").read() == "oid,uid,note,uid,name\n"
    n = csvidx.join(orders.path, users.path, "uid", out, right_key="uid")
    got = read(out)
    assert n == len(got) and list(got["oid"]) == sorted(got["oid"], key=int)


@pytest.mark.parametrize("how", ["inner", "left", "right", "full"])
def test_join_coalesce_prints_the_key_once(files, how):
    """coalesce=True: right's key column is left out, and a right row no
    left row matched keeps its key in left's key column, as pandas' merge
    on one column name keeps the key once."""
    orders, users, tmp = files
    out = str(tmp / f"co-{how}.csv")
    rows = csvidx.join(orders.path, users.path, "uid", out, how=how, coalesce=True)
    got = read(out)
    assert list(got.columns) == ["oid", "uid", "note", "name"]
    want = []
    for r in reference(how, read(orders.path).values.tolist(), read(users.path).values.tolist()):
        if r[0] == "":  # a right row alone: its key in left's key column
            want.append(("", r[3], "", r[4]))
        else:
            want.append(r[:3] + r[4:])
    assert rows == len(got)
    assert list(map(tuple, got.values.tolist())) == want


def test_join_coalesce_refused_with_one_side(files):
    orders, users, tmp = files
    msg = one_line_error(lambda: csvidx.join(orders.path, users.path, "uid", str(tmp / "x.csv"), how="semi", coalesce=True))
    assert "coalesce" in msg.lower()


def snapshot(d):
    """Every name in d with its kind and bytes (a FIFO's or a device's are not read)."""
    out = {}
    for name in sorted(os.listdir(d)):
        st = os.lstat(os.path.join(d, name))
        data = open(os.path.join(d, name), "rb").read() if stat.S_ISREG(st.st_mode) else None
        out[name] = (stat.S_IFMT(st.st_mode), st.st_ino, data)
    return out


def one_line_error(call):
    with pytest.raises(csvidx.CsvIdxError) as e:
        call()
    msg = str(e.value)
    assert "\n" not in msg and ".tmp" not in msg, msg
    return msg


def test_join_refuses_to_write_over_its_inputs(files):
    orders, users, tmp = files
    idx = users.path + ".csvidx"
    os.symlink(idx, tmp / "link-to-index")
    os.link(orders.path, tmp / "hardlink-to-left")
    before = snapshot(tmp)
    # LEFT, RIGHT and each of RIGHT's index files, through any link; the
    # tail, absent, would be created by the output (and break the index).
    for out, what in [(orders.path, "the left file"), (tmp / "hardlink-to-left", "the left file"),
                      (users.path, "the right file"), (idx, "the right file's index"),
                      (tmp / "link-to-index", "the right file's index"),
                      (idx + ".fence", "fence file"), (idx + ".lock", "lock file"), (idx + ".tail", "tail file")]:
        msg = one_line_error(lambda out=out: csvidx.join(orders.path, users.path, "uid", out))
        assert msg.startswith(f"out={str(out)!r} is ") and what in msg and "its own input" in msg, msg
        assert snapshot(tmp) == before
    with pytest.raises(csvidx.CsvIdxError, match="no index by"):
        csvidx.join(users.path, orders.path, "uid", users.path + ".out")
    assert not os.path.exists(users.path + ".out")


def test_join_checks_out_before_reading_left(files):
    orders, users, tmp = files
    os.mkdir(tmp / "d")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp / "sock"))
    before = snapshot(tmp)
    missing = str(tmp / "no-such-left.csv")  # an error about out, not LEFT, shows out came first
    for out, want in [("", "out='' is not a path"), (tmp / "d", "is a directory"),
                      (tmp / "sock", "is a socket"), (tmp / "no-dir" / "o.csv", "no-dir, which does not exist")]:
        msg = one_line_error(lambda out=out: csvidx.join(missing, users.path, "uid", out))
        assert msg.startswith(f"out={str(out)!r}") and want in msg, msg
        assert snapshot(tmp) == before
    sock.close()


def test_join_into_a_fifo_writes_through_it(files):
    orders, users, tmp = files
    want_rows = csvidx.join(orders.path, users.path, "uid", str(tmp / "regular.csv"))
    want = open(tmp / "regular.csv", "rb").read()
    fifo = str(tmp / "fifo")
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    rows = csvidx.join(orders.path, users.path, "uid", fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    reader.join(10)
    assert not reader.is_alive() and got == [want] and rows == want_rows


def test_join_into_a_character_device_writes_through_it(files):
    orders, users, tmp = files
    null = str(tmp / "null")  # a private node of /dev/null's device: the real one is never touched
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    except PermissionError:
        pytest.skip("making a device node needs root")
    rows = csvidx.join(orders.path, users.path, "uid", null, how="left")
    st = os.lstat(null)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.stat("/dev/null").st_rdev, "the device was replaced"
    assert rows == csvidx.join(orders.path, users.path, "uid", str(tmp / "regular.csv"), how="left") > 0


def test_join_output_mode_as_the_shell_makes_it(files):
    orders, users, tmp = files
    old = os.umask(0o027)
    try:
        new = str(tmp / "new.csv")
        csvidx.join(orders.path, users.path, "uid", new)
        assert stat.S_IMODE(os.stat(new).st_mode) == 0o640  # 0666 less the umask, as > new makes it
        os.chmod(new, 0o604)
        csvidx.join(orders.path, users.path, "uid", new, how="left")
        assert stat.S_IMODE(os.stat(new).st_mode) == 0o604  # a file replaced keeps its permissions
    finally:
        os.umask(old)


def test_join_through_a_symbolic_link_replaces_its_target(files):
    orders, users, tmp = files
    target = str(tmp / "target.csv")
    open(target, "w", encoding="utf-8").write("old\n")
    os.symlink("target.csv", tmp / "link.csv")
    rows = csvidx.join(orders.path, users.path, "uid", str(tmp / "link.csv"))
    assert os.readlink(tmp / "link.csv") == "target.csv"
    assert len(read(target)) == rows > 0
    os.symlink("nowhere.csv", tmp / "dangling.csv")
    msg = one_line_error(lambda: csvidx.join(orders.path, users.path, "uid", str(tmp / "dangling.csv")))
    assert "symbolic link" in msg and not os.path.exists(tmp / "nowhere.csv"), msg


def test_join_finds_right_in_the_index_dir(tmp_path, monkeypatch):
    """RIGHT indexed in an index directory (issue 38, C11) is found there,
    by index_dir or CSVIDX_INDEX_DIR, as csvidx join --index-dir finds it;
    out may not be its index there either."""
    users = CSVFile(tmp_path / "users.csv", ["uid", "name"], USERS, key_col=0)
    orders = CSVFile(tmp_path / "orders.csv", ["oid", "uid", "note"], ORDERS, key_col=1)
    idx = tmp_path / "idx"
    idx.mkdir()
    info = csvidx.build(users.path, key="uid", index_dir=str(idx))
    want = reference("full", read(orders.path).values.tolist(), read(users.path).values.tolist())
    with pytest.raises(csvidx.CsvIdxError, match="has no index by uid"):
        csvidx.join(orders.path, users.path, "uid", str(tmp_path / "x.csv"), how="full")
    out = str(tmp_path / "j.csv")
    assert csvidx.join(orders.path, users.path, "uid", out, how="full", index_dir=str(idx)) == len(want)
    assert list(map(tuple, read(out).values.tolist())) == want
    monkeypatch.setenv("CSVIDX_INDEX_DIR", str(idx))
    os.remove(out)
    assert csvidx.join(orders.path, users.path, "uid", out, how="full") == len(want)
    assert list(map(tuple, read(out).values.tolist())) == want
    with pytest.raises(csvidx.CsvIdxError, match="has no index by uid"):
        csvidx.join(orders.path, users.path, "uid", out, index_dir="")
    before = snapshot(idx)
    for f in (info["index"], info["index"] + ".lock"):
        msg = one_line_error(lambda f=f: csvidx.join(orders.path, users.path, "uid", f))
        assert "its own input" in msg, msg
    assert snapshot(idx) == before


@pytest.fixture
def big_right(tmp_path):
    """A RIGHT of 18 MiB keyed by its first column, so that the bitmap of
    its rows (1/16 of it) is past 1 MiB, and a LEFT that matches some of
    its rows, and not others."""
    right = tmp_path / "big.csv"
    pad = "x" * 90
    with open(right, "w", encoding="utf-8") as f:
        f.write("k,pad\n")
        f.writelines(f"{i},{pad}\n" for i in range(200_000))
    assert os.path.getsize(right) > 17 << 20
    csvidx.build(str(right), key="k")
    left = tmp_path / "left.csv"
    left.write_text("k,n\n" + "".join(f"{i},{i % 7}\n" for i in range(-5, 200_000, 997)), encoding="utf-8")
    return str(left), str(right), tmp_path


def test_join_mem_limit_tmp_dir_threads(big_right):
    """join's mem_limit_mib, tmp_dir and threads (csvidx join's
    --mem-limit-mib, --tmp-dir, --threads): past the limit the bitmap of
    --full lives in a file in tmp_dir, which holds nothing after, and the
    rows are the same."""
    left, right, tmp = big_right
    want_rows = csvidx.join(left, right, "k", str(tmp / "default.csv"), how="full")
    want = open(tmp / "default.csv", "rb").read()
    assert want_rows == 200_000 + 1  # each RIGHT row once, and LEFT's unmatched -5
    bits = tmp / "bits"
    bits.mkdir()
    for kw in ({"mem_limit_mib": 1, "tmp_dir": str(bits)}, {"mem_limit_mib": 1, "tmp_dir": str(bits), "threads": 1},
               {"threads": 3}):
        out = tmp / "limited.csv"
        assert csvidx.join(left, right, "k", str(out), how="full", **kw) == want_rows, kw
        assert open(out, "rb").read() == want, kw
        assert os.listdir(bits) == [], kw
    # Within the limit the bitmap needs no directory; past it, one that is
    # not there is an error before any row, and out is not left behind.
    missing = str(tmp / "no-such-dir")
    out = str(tmp / "fails.csv")
    assert csvidx.join(left, right, "k", out, how="right", tmp_dir=missing) == 200_000
    os.remove(out)
    with pytest.raises(csvidx.CsvIdxError, match=f"temporary file in {missing}"):
        csvidx.join(left, right, "k", out, how="right", mem_limit_mib=1, tmp_dir=missing)
    assert not os.path.exists(out)


def test_join_bad_resources_are_named_by_their_keywords(cli, files):
    """Bad options are the CLI's errors, named by Python's keywords where
    the CLI names its flags, and found before out is made."""
    orders, users, tmp = files
    out = str(tmp / "out.csv")
    for kwargs, flags in [({"mem_limit_mib": 0}, ["--mem-limit-mib", "0"]), ({"threads": -1}, ["--threads", "-1"]),
                          ({"threads": 100_000}, ["--threads", "100000"])]:
        with pytest.raises(csvidx.CsvIdxError) as e:
            csvidx.join(orders.path, users.path, "uid", out, **kwargs)
        (name, value), = kwargs.items()
        said, why = str(e.value).split(": ", 1)
        cli_said, cli_why = cli_error(cli, "join", orders.path, users.path, "--key", "uid", *flags).split(": ", 1)
        assert (said, cli_said) == (f"{name}={value}", f"{flags[0]} {value}")
        assert why == cli_why
        assert not os.path.exists(out)
    with pytest.raises(csvidx.CsvIdxError, match=r"^mem_limit_mib=1099511627777: give at most 1099511627776$"):
        csvidx.join(orders.path, users.path, "uid", out, mem_limit_mib=(1 << 40) + 1)
    with pytest.raises(TypeError, match="threads must be an int"):
        csvidx.join(orders.path, users.path, "uid", out, threads="2")
    with pytest.raises(TypeError, match="mem_limit_mib must be an int"):
        csvidx.join(orders.path, users.path, "uid", out, mem_limit_mib=1.5)
    with pytest.raises(ValueError, match="null byte in tmp_dir"):
        csvidx.join(orders.path, users.path, "uid", out, tmp_dir="a\0b")
    assert not os.path.exists(out)


TRUNCATED = r'''
import os, sys, threading, csvidx
tmp, rounds = sys.argv[1], int(sys.argv[2])
for n in range(rounds):
    right = os.path.join(tmp, f"r{n}.csv")
    with open(right, "w") as f:
        f.write("k,w\n" + "".join(f"{i},{i}\n" for i in range(20000)))
    csvidx.build(right, key="k")
    left = os.path.join(tmp, f"l{n}.fifo")
    os.mkfifo(left)

    def feed():
        try:
            with open(left, "w") as f:
                f.write("k\n")
                for i in range(60000):
                    f.write(f"{i % 20000}\n")
                    if i == 20000:
                        f.flush()
                        os.truncate(right, 0)
        except BrokenPipeError:
            pass  # the join stopped reading: it failed

    t = threading.Thread(target=feed)
    t.start()
    try:
        csvidx.join(left, right, "k", os.path.join(tmp, "out.csv"))
        print("no error")
        sys.exit(1)
    except csvidx.CsvIdxError as e:
        # Mostly truncated mid-join; now and then before RIGHT was opened
        # or read (stale), or after the last lookup (stale at the end).
        if "changed while being read" not in str(e) and "is stale" not in str(e):
            print(e)
            sys.exit(1)
    t.join()
print("ok")
'''


def test_join_right_truncated_is_an_error_not_a_hang(tmp_path):
    """RIGHT truncated while a join reads it (issue 38, A7): a CsvIdxError
    saying the file changed, never a hang, which a c-shared runtime cannot
    detect. LEFT is a FIFO, so the truncation comes at a known point of
    it, mostly while the join runs; the join runs in a child process, so a
    hang fails the test instead of stalling it. Before the fix, one join
    in about eight hung."""
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    try:
        p = subprocess.run([sys.executable, "-c", TRUNCATED, str(tmp_path), "20"], env=env,
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("a join of a truncated RIGHT hung")
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stdout + p.stderr


def test_join_left_url_says_csvidx_reads_local_files(files):
    orders, users, tmp = files
    out = str(tmp / "out.csv")
    msg = one_line_error(lambda: csvidx.join("https://example.com/orders.csv", users.path, "uid", out))
    assert "it is a URL, and csvidx reads local files; download it first" in msg, msg
    assert not os.path.exists(out)
