"""csvidx.dask: one index over many CSV files, built by Dask, and big
batches of lookups through it.

build runs the four steps of csvidx plan, map, reduce and commit as one
Dask graph, and update those of csvidx plan --update, which add new
files to the index: the plan here, then a task per map (a range of the
files' concatenation), a task per partition's reduce once every map is
done, and the commit. Each task calls the csvidx library in its worker's
process; each writes only files named after the plan's run and its own
number, so a task that the scheduler runs again (after a worker died, or
twice) does no harm. The files and the manifest's directory must be
readable and writable at the same paths from every worker (a shared file
system, or one machine).

    from distributed import Client, LocalCluster
    import csvidx.dask
    with LocalCluster(n_workers=4) as cluster, Client(cluster) as client:
        csvidx.dask.build("orders/*.csv", "order_id", "orders.idx", partitions=8, client=client)
        csvidx.dask.update("orders.idx", client=client)  # later: the new files of orders/*.csv
        df = csvidx.dask.get("orders.idx", keys, client=client)

Dask reaches Kubernetes, Slurm/PBS and YARN through its own deployers
(dask-kubernetes, dask-jobqueue, dask-yarn): give their client.
"""

import os

from . import _api

__all__ = ["build", "get", "update"]


def _abs(p):
    """p as an absolute path (a URL as it is): the workers may not share
    this process's working directory."""
    s = os.fsdecode(os.fspath(p))
    return s if "://" in s else os.path.abspath(s)


def _map(plan_path, task):
    return _api.map_task(plan_path, task)


def _reduce(plan_path, partition, maps, mem_limit_mib, threads):
    del maps  # the map tasks' results: they only order this task after them
    return _api.reduce_task(plan_path, partition, mem_limit_mib=mem_limit_mib, threads=threads)


def _commit(plan_path, reduces):
    del reduces
    return _api.commit(plan_path)


def build(paths, key, out, *, partitions=None, client=None, split_mib=256, no_header=False, delimiter=",",
          retries=3, mem_limit_mib=_api.DEFAULT_MEM_LIMIT_MIB, threads=1):
    """Build one index over the files paths (paths, URLs or patterns such as
    "orders/*.csv"; a str or a list) by key, whose manifest goes to out, on
    the Dask cluster of client (the default client when None, else Dask's
    local scheduler): plan, then the map and reduce tasks as a graph, each
    tried up to retries times more, then the commit. partitions (index
    files, the reduce tasks) defaults to the cluster's worker threads;
    split_mib is a map task's share of the files; mem_limit_mib and
    threads bound each reduce task. Returns what commit returns:
    {"manifest", "run", "files", "partitions", "size", "layers"}."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    client = _client(client)
    if partitions is None:
        partitions = max(1, sum(client.nthreads().values())) if client is not None else (os.cpu_count() or 1)
    p = _api.plan([_abs(x) for x in paths], key, _abs(out), partitions=partitions, split_mib=split_mib,
                  no_header=no_header, delimiter=delimiter)
    return _run(p, client, retries, mem_limit_mib, threads)


def update(manifest, paths=None, *, client=None, split_mib=256, retries=3, mem_limit_mib=_api.DEFAULT_MEM_LIMIT_MIB,
           threads=1):
    """Add files to the index over many files whose manifest is manifest, on
    the Dask cluster of client (as build picks it): plan_update here, then
    the map and reduce tasks and the commit as build runs them. The files
    are those among paths (paths, URLs or patterns; a str or a list) that
    the index does not list, in that order, or with paths None those its
    build's patterns or list name now; they go after the others, their
    rows into a new layer of index files (see csvidx.plan_update).
    split_mib, retries, mem_limit_mib and threads are build's. Returns what
    build returns, and ``added``, the files added; when there is none to
    add, nothing runs and it returns {"manifest": manifest, "added": []}."""
    client = _client(client)
    manifest = _abs(manifest)
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    files = None if paths is None else [_abs(x) for x in paths]
    p = _api.plan_update(manifest, files, split_mib=split_mib)
    if p["plan"] is None:
        return {"manifest": manifest, "added": []}
    return {**_run(p, client, retries, mem_limit_mib, threads), "added": p["added"]}


def _run(p, client, retries, mem_limit_mib, threads):
    """Run the plan p (what plan or plan_update returns) as one graph on
    client (None: Dask's local scheduler): a task per map, a task per
    partition's reduce once every map is done, then the commit, each tried
    up to retries times more; return what commit returns."""
    import dask  # pylint: disable=import-outside-toplevel

    plan_path, run = p["plan"], p["run"]
    maps = [dask.delayed(_map, pure=False)(plan_path, i, dask_key_name=f"csvidx-map-{run}-{i}")
            for i in range(p["tasks"])]
    reduces = [dask.delayed(_reduce, pure=False)(plan_path, j, maps, mem_limit_mib, threads,
                                                  dask_key_name=f"csvidx-reduce-{run}-{j}")
               for j in range(p["partitions"])]
    done = dask.delayed(_commit, pure=False)(plan_path, reduces, dask_key_name=f"csvidx-commit-{run}")
    if client is not None:
        return client.compute(done, retries=retries).result()
    return done.compute()


def _lookup(manifest, keys):
    with _api.Index(manifest) as idx:
        return idx.get_bytes(keys)


def _client(client):
    """client, else the default client of distributed, else None (Dask's
    local scheduler)."""
    if client is not None:
        return client
    try:
        from distributed import get_client  # pylint: disable=import-outside-toplevel
        return get_client()
    except (ImportError, ValueError):
        return None


def get(manifest, keys, *, client=None, batch=10000, **read_csv_kwargs):
    """The rows of keys (a collection) through the index whose manifest is
    manifest, as a pandas DataFrame: looked up in batches of batch keys,
    each a task on the Dask cluster of client (as build picks it), the
    batches' rows one after the other, each batch's in the order of the
    files (a row whose key is in two batches comes twice). read_csv_kwargs
    go to read_csv as for csvidx.Index.get."""
    import io  # pylint: disable=import-outside-toplevel

    import dask  # pylint: disable=import-outside-toplevel

    pd = _api._pandas()  # pylint: disable=protected-access
    manifest = _abs(manifest)
    keys = list(keys)
    with _api.Index(manifest) as idx:
        if len(keys) <= batch:
            return idx.get(keys, **read_csv_kwargs)
        empty = idx.get([], **read_csv_kwargs)  # the columns, for no rows at all
        head = idx._rows([], True)  # pylint: disable=protected-access # the header record, b"" without one
        kw = dict(read_csv_kwargs)
        meta = idx._metadata()  # pylint: disable=protected-access
        if "sep" not in kw and "delimiter" not in kw:
            kw["sep"] = meta["delimiter"]
        if not meta["header"]:
            kw.setdefault("header", None)
        idx._key_as_text(kw, meta)  # pylint: disable=protected-access
    parts = [dask.delayed(_lookup, pure=True)(manifest, keys[i:i + batch]) for i in range(0, len(keys), batch)]
    c = _client(client)
    chunks = c.compute(parts, sync=True) if c is not None else dask.compute(*parts)
    data = b"".join(chunks)
    if not data:
        return empty
    return pd.read_csv(io.BytesIO(head + data), **kw)
