"""csvidx.dask (issue 42): one index over many files built by plan, map,
reduce and commit as a Dask graph, on a LocalCluster of two worker
processes, and looked up through its manifest; the oracle is the files'
bytes as Python's csv module wrote them. A map task whose worker dies is
run again by the scheduler, and the index is the same; an aborted run's
outputs do not stop another's commit. update adds files (the build's
pattern's new ones, or those named) as a graph too, and the index answers
as one built over all the files in the order they were added."""

import os

import pytest

from conftest import CSVFile

if os.environ.get("CSVIDX_REQUIRE_TOOLS") == "1":
    import distributed  # noqa: F401 (CI installs python3-distributed: the tests must run there)
else:
    distributed = pytest.importorskip("distributed")

import csvidx  # noqa: E402
import csvidx.dask  # noqa: E402


def _files(tmp_path, n=20, rows=40):
    """n small files and a big one, of one header, keys shared between them;
    a quoted field with a line break now and then."""
    files = []
    for i in range(n + 1):
        count = rows * 1500 if i == n else rows  # the big one: map tasks of 1 MiB cut it
        data = []
        for k in range(count):
            note = "plain" if k % 7 else 'a "quoted",\nnote'
            data.append([str(i * 100000 + k), f"u{(i * 7 + k) % 53}", note])
        files.append(CSVFile(tmp_path / f"part-{i:03d}.csv", ["id", "user", "note"], data, 1))
    return files


def _want(files, keys):
    """The rows of keys, in the order of the files, then of their rows."""
    keys = set(keys)
    return b"".join(raw for f in files for fields, raw in f.rows if fields[1] in keys)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


def test_build_get(tmp_path, client):
    files = _files(tmp_path)
    out = tmp_path / "all.idx"
    r = csvidx.dask.build(str(tmp_path / "part-*.csv"), "user", out, partitions=3, split_mib=1, client=client)
    assert r["files"] == len(files) and r["partitions"] == 3 and r["size"] > 1 << 20 and os.path.exists(out)
    with csvidx.Index(out) as idx:
        for u in range(55):  # u53, u54 are in no file
            key = f"u{u}"
            assert idx.get_bytes(key) == _want(files, [key]), key
        assert idx.count("u5") == sum(1 for f in files for fields, _ in f.rows if fields[1] == "u5")
        df = idx.get(["u1", "u2"])
        assert list(df.columns) == ["id", "user", "note"] and len(df) == idx.count("u1") + idx.count("u2")
        assert idx.info["rows"] == sum(len(f.rows) for f in files)
    keys = [f"u{u}" for u in range(50)]
    df = csvidx.dask.get(out, keys, client=client, batch=7)
    assert len(df) == sum(1 for f in files for fields, _ in f.rows if fields[1] in set(keys))
    assert set(df["user"]) == set(keys)


def test_killed_map_retried(tmp_path, client):
    """A map task that kills its worker once is run again elsewhere, and the
    index is the one a build with no failure writes."""
    files = _files(tmp_path, n=6)
    marker = tmp_path / "killed-once"

    def die_once(plan_path, task):
        if task == 0 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)  # the worker process dies in the middle of its task
        return csvidx._api.map_task(plan_path, task)

    real = csvidx.dask._map
    csvidx.dask._map = die_once
    try:
        r = csvidx.dask.build([f.path for f in files], "user", tmp_path / "killed.idx", partitions=2, split_mib=1,
                              client=client)
    finally:
        csvidx.dask._map = real
    assert marker.exists() and r["partitions"] == 2
    csvidx.dask.build([f.path for f in files], "user", tmp_path / "plain.idx", partitions=2, split_mib=1,
                      client=client)
    with csvidx.Index(tmp_path / "killed.idx") as a, csvidx.Index(tmp_path / "plain.idx") as b:
        for u in range(53):
            assert a.get_bytes(f"u{u}") == b.get_bytes(f"u{u}") == _want(files, [f"u{u}"])


def test_aborted_run(tmp_path, client):
    """A run planned and partly mapped, then abandoned, is never committed;
    another run's commit publishes its own manifest and leaves the
    abandoned files alone."""
    files = _files(tmp_path, n=4)
    out = tmp_path / "m.idx"
    p = csvidx._api.plan([f.path for f in files], "user", out, partitions=2)
    csvidx._api.map_task(p["plan"], 0)
    with pytest.raises(csvidx.CsvIdxError, match="task [01] has not run"):
        csvidx._api.commit(p["plan"])
    r = csvidx.dask.build([f.path for f in files], "user", out, partitions=2, client=client)
    assert r["run"] != p["run"] and os.path.exists(p["plan"])
    with csvidx.Index(out) as idx:
        assert idx.get_bytes("u3") == _want(files, ["u3"])


def test_update(tmp_path, client):
    """csvidx.dask.update adds the files the build's pattern names now, then
    files named, each as a layer (a map task whose worker dies run again),
    then finds nothing to add; after each, every key's rows are the
    files', in the order of their concatenation, as in a fresh build of
    them in that order."""
    files = _files(tmp_path, n=5)  # part-000..004 and the big part-005
    out = tmp_path / "all.idx"
    r = csvidx.dask.build(str(tmp_path / "part-*.csv"), "user", out, partitions=3, split_mib=1, client=client)
    assert r["layers"] == 1

    def more(i, name, rows):
        data = [[str(i * 100000 + k), f"u{(i * 7 + k) % 53}", "plain" if k % 7 else 'a "quoted",\nnote']
                for k in range(rows)]
        return CSVFile(tmp_path / name, ["id", "user", "note"], data, 1)

    new = [more(10, "part-010.csv", 40), more(11, "part-011.csv", 40)]
    r = csvidx.dask.update(out, client=client)
    assert r["added"] == [f.path for f in new] and r["files"] == 8 and r["partitions"] == 3 and r["layers"] == 2
    files += new

    # Fewer bytes than half the last layer's, so that it stays; in the order
    # named, not sorted, and after the others although the second sorts
    # before them.
    named = [more(12, "zz-later.csv", 15), more(13, "part-0000.csv", 15)]
    marker = tmp_path / "killed-once"

    def die_once(plan_path, task):
        if task == 0 and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        return csvidx._api.map_task(plan_path, task)

    real = csvidx.dask._map
    csvidx.dask._map = die_once
    try:
        r = csvidx.dask.update(str(out), [files[0].path] + [f.path for f in named], client=client)
    finally:
        csvidx.dask._map = real
    assert marker.exists() and r["added"] == [f.path for f in named] and r["files"] == 10 and r["layers"] == 3
    files += named

    assert csvidx.dask.update(out, client=client) == {"manifest": str(out), "added": []}
    assert csvidx.dask.update(out, files[3].path, client=client)["added"] == []

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    csvidx.dask.build([f.path for f in files], "user", fresh / "all.idx", partitions=2, client=client)
    with csvidx.Index(out) as idx, csvidx.Index(fresh / "all.idx") as one:
        for u in range(55):
            key = f"u{u}"
            assert idx.get_bytes(key) == one.get_bytes(key) == _want(files, [key]), key
        assert idx.info["rows"] == one.info["rows"] == sum(len(f.rows) for f in files)
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".plan") or ".map-" in n]
