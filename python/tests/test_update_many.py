"""Update of an index over many files (multifile.Update) through the
binding: csvidx.update of a manifest, and csvidx.plan_update with
map_task, reduce_task and commit. After every update, every key's rows
through csvidx.Index(MANIFEST) are the rows of the files, in the order of
their concatenation (the files of the build, then those each update
added), as Python's csv module wrote them, and equal those of a fresh
build of all the files in that order; the manifest's directory holds only
its files. (csvidx.dask.update is in test_dask.py.)"""

import json
import os

import pytest

from conftest import CSVFile

import csvidx

HEADER = ["id", "user", "note"]
KEYS = [f"u{u}" for u in range(55)]  # u53, u54 are in no file


def _file(path, i, count, header=None):
    """A CSV of count rows (file number i: ids of its own, all of one
    width, so that rows are about as long in every file), keys shared with
    the other files; a quoted field with a line break now and then."""
    data = []
    for k in range(count):
        note = "plain" if k % 7 else 'a "quoted",\nnote'
        data.append([f"{i:03d}-{k:07d}", f"u{(i * 7 + k) % 53}", note])
    return CSVFile(path, header or HEADER, data, 1)


def _want(files, key):
    """key's rows, in the order of the files, then of their rows."""
    return b"".join(raw for f in files for fields, raw in f.rows if fields[1] == key)


def _run(p):
    """Run the plan p (plan's or plan_update's) here: every map task, every
    reduce task, the commit; return what commit returns."""
    for i in range(p["tasks"]):
        csvidx.map_task(p["plan"], i)
    for j in range(p["partitions"]):
        csvidx.reduce_task(p["plan"], j)
    return csvidx.commit(p["plan"])


def _build(paths, manifest, partitions=3):
    return _run(csvidx.plan(paths, "user", manifest, partitions=partitions, split_mib=1))


def _check(manifest, files, tmp_path):
    """The index at manifest answers every key with the rows of files, in
    order, as does a fresh build of files; its directory holds no file of
    a run but the manifest's."""
    total = sum(len(f.rows) for f in files)
    fresh = tmp_path / f"fresh-{len(files)}"
    fresh.mkdir()
    _build([f.path for f in files], fresh / "all.idx", partitions=2)
    with csvidx.Index(manifest) as idx, csvidx.Index(fresh / "all.idx") as one:
        for key in KEYS:
            want = _want(files, key)
            assert idx.get_bytes(key) == want == one.get_bytes(key), key
            assert idx.count(key) == one.count(key) == sum(1 for f in files for fields, _ in f.rows
                                                           if fields[1] == key)
        assert idx.get_bytes(KEYS) == one.get_bytes(KEYS)
        assert idx.info["rows"] == one.info["rows"] == total
        df = idx.get(["u1", "u2"])
        assert list(df.columns) == HEADER and len(df) == idx.count("u1") + idx.count("u2")
    assert _leftovers(manifest) == []


def _leftovers(manifest):
    """The files beside manifest, named after it, that it does not name:
    plans, map outputs, index files of replaced layers."""
    d, base = os.path.split(str(manifest))
    with open(manifest, encoding="utf-8") as f:
        m = json.load(f)
    named = {base, m["parts_file"]}
    for p in m["partitions"] + [p for layer in m.get("layers", []) for p in layer["partitions"]]:
        named |= {p, p + ".fence"}
    return sorted(n for n in os.listdir(d) if n.startswith(base + ".") and n not in named)


def _layers(manifest):
    with open(manifest, encoding="utf-8") as f:
        return 1 + len(json.load(f).get("layers", []))


def _added_bytes(files):
    """What files add to the concatenation: each without its header."""
    return sum(os.path.getsize(f.path) - len(",".join(f.header)) - 1 for f in files)


def test_update_manifest(tmp_path):
    """csvidx.update(MANIFEST): the new files of the build's pattern (the
    plan recorded it), then files named (one the index lists passed over),
    then nothing to add; small updates make layers, a big one builds the
    index anew."""
    files = [_file(tmp_path / "part-000.csv", 0, 3000)] + [_file(tmp_path / f"part-{i:03d}.csv", i, 40)
                                                           for i in range(1, 6)]
    manifest = tmp_path / "all.idx"
    r = _build(str(tmp_path / "part-*.csv"), manifest)
    assert r["files"] == 6 and r["layers"] == 1

    new = [_file(tmp_path / f"part-{i:03d}.csv", i, 40) for i in range(6, 10)]
    r = csvidx.update(manifest)
    assert r["added"] == [f.path for f in new]
    assert r["new_bytes"] == r["indexed"] == _added_bytes(new)
    assert r["layers"] == 2 == _layers(manifest)
    files += new
    _check(manifest, files, tmp_path)

    # Named files: one the index lists (passed over), one the pattern does
    # not match, one that sorts before the others (it goes after them all).
    extra = [_file(tmp_path / "extra.csv", 10, 15), _file(tmp_path / "part-0005a.csv", 11, 15)]
    r = csvidx.update(manifest, paths=[files[2].path, extra[0].path, extra[1].path])
    assert r["added"] == [extra[0].path, extra[1].path] and r["layers"] == 3
    assert r["new_bytes"] == r["indexed"] == _added_bytes(extra)
    files += extra
    _check(manifest, files, tmp_path)

    r = csvidx.update(manifest)  # the pattern names no new file
    assert r["added"] == [] and r["new_bytes"] == r["indexed"] == 0 and r["layers"] == 3
    r = csvidx.update(manifest, paths=str(tmp_path / "part-*.csv"))
    assert r["added"] == [] and r["layers"] == 3

    big = [_file(tmp_path / "part-100.csv", 100, 4000)]  # more than half of the index's bytes
    r = csvidx.update(manifest, threads=2, mem_limit_mib=64)
    assert r["added"] == [big[0].path] and r["new_bytes"] == _added_bytes(big)
    assert r["layers"] == 1 == _layers(manifest)
    assert r["indexed"] == _added_bytes(files + big)  # every record, anew
    files += big
    _check(manifest, files, tmp_path)


def test_plan_update_steps(tmp_path):
    """plan_update, then map_task, reduce_task and commit, as a scheduler
    runs them: several map tasks; a plan whose manifest another update
    replaced meanwhile is refused at commit, and the index stays the
    other's."""
    files = [_file(tmp_path / "a-0.csv", 0, 150000), _file(tmp_path / "a-1.csv", 1, 40)]
    manifest = tmp_path / "a.idx"
    _build([f.path for f in files], manifest)  # named one by one: no pattern to look in

    with pytest.raises(csvidx.CsvIdxError, match="its build named each file, by no pattern or list; name the files"):
        csvidx.plan_update(manifest)

    new = [_file(tmp_path / "b-0.csv", 2, 60000), _file(tmp_path / "b-1.csv", 3, 40)]  # 1.4 MiB
    p = csvidx.plan_update(manifest, [f.path for f in new], split_mib=1)
    assert p["added"] == [f.path for f in new] and p["partitions"] == 3 and p["tasks"] >= 2
    assert os.path.exists(p["plan"]) and p["run"] in p["plan"]
    r = _run(p)
    assert r["layers"] == 2 and r["files"] == 4 and r["partitions"] == 3 and r["run"] == p["run"]
    files += new
    _check(manifest, files, tmp_path)

    nothing = csvidx.plan_update(manifest, [f.path for f in files])
    assert nothing == {"plan": None, "run": None, "tasks": 0, "partitions": 0, "added": []}

    late = _file(tmp_path / "c-0.csv", 4, 40)
    stale = csvidx.plan_update(manifest, late.path)
    other = _file(tmp_path / "c-1.csv", 5, 40)
    assert csvidx.update(manifest, paths=[other.path])["added"] == [other.path]
    files.append(other)
    for i in range(stale["tasks"]):
        csvidx.map_task(stale["plan"], i)
    for j in range(stale["partitions"]):
        csvidx.reduce_task(stale["plan"], j)
    with pytest.raises(csvidx.CsvIdxError, match="replaced since: plan the update again"):
        csvidx.commit(stale["plan"])
    with csvidx.Index(manifest) as idx:
        assert idx.info["rows"] == sum(len(f.rows) for f in files)
        assert idx.get_bytes("u4") == _want(files, "u4")


def test_update_errors(tmp_path):
    """A new file of another header is refused, by update and by
    plan_update, with the index as it was and no file of the run left; the
    options that do not apply to a manifest are refused, and paths to an
    index of one file."""
    files = [_file(tmp_path / f"p-{i}.csv", i, 200) for i in range(3)]
    manifest = tmp_path / "p.idx"
    _build(str(tmp_path / "p-*.csv"), manifest, partitions=2)
    before = sorted(os.listdir(tmp_path))

    odd = _file(tmp_path / "p-3.csv", 3, 40, header=["id", "user", "remark"])
    for call in (lambda: csvidx.update(manifest), lambda: csvidx.plan_update(manifest, odd.path)):
        with pytest.raises(csvidx.CsvIdxError) as e:
            call()
        msg = str(e.value)
        assert "p-3.csv: its header differs from the index's" in msg and "id,user,remark" in msg and \
            "every file must have the same header" in msg, msg
        assert sorted(os.listdir(tmp_path)) == sorted(before + ["p-3.csv"])
    os.remove(odd.path)
    with csvidx.Index(manifest) as idx:
        assert idx.get_bytes("u3") == _want(files, "u3")

    with pytest.raises(csvidx.CsvIdxError, match=r"no_compact=True: an index over many files has no tail"):
        csvidx.update(manifest, no_compact=True)
    with pytest.raises(csvidx.CsvIdxError, match="by picks among one file's indexes; leave it out"):
        csvidx.update(manifest, by="user")
    with pytest.raises(csvidx.CsvIdxError, match="files: an empty list names no file to add"):
        csvidx.update(manifest, paths=[])
    with pytest.raises(csvidx.CsvIdxError, match="no file matches"):
        csvidx.plan_update(manifest, str(tmp_path / "q-*.csv"))
    with pytest.raises(csvidx.CsvIdxError, match="split_mib=0: give 1 or more"):
        csvidx.plan_update(manifest, split_mib=0)
    with pytest.raises(csvidx.CsvIdxError, match="p-0.csv is no index over many files"):
        csvidx.update(files[0].path, paths=[files[1].path])
    assert sorted(os.listdir(tmp_path)) == sorted(before)
