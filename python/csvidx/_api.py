"""csvidx's Python API over the C functions of the Go library."""

import csv
import dataclasses
import io
import json
import os
import stat
import warnings
from collections.abc import Mapping

from . import _keys
from . import _native as _n
from ._errors import CsvIdxError, CsvIdxWarning

DEFAULT_MEM_LIMIT_MIB = 1024  # as the CLI's --mem-limit-mib
INDEX_DIR_ENV = "CSVIDX_INDEX_DIR"  # index_dir's default, as the CLI's --index-dir's

# pandas reads a small result in one chunk whatever low_memory says, so
# low_memory=False gives the same frame, a little faster; a large one keeps
# pandas' default.
_SMALL_RESULT = 64 << 10  # bytes


def _path(p, what="path"):
    if p is None:
        return None
    b = os.fsencode(os.fspath(p))
    if b"\0" in b:
        raise ValueError(f"csvidx: embedded null byte in {what}")
    return b


def _int(v, what):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"csvidx: {what} must be an int, not {type(v).__name__}")
    return v


def _text(v, what):
    if isinstance(v, str):
        b = v.encode("utf-8", "surrogateescape")
    elif isinstance(v, bytes):
        b = v
    else:
        raise TypeError(f"csvidx: {what} must be str or bytes, not {type(v).__name__}")
    if b"\0" in b:
        raise ValueError(f"csvidx: embedded null byte in {what}")
    return b


def _resources(mem_limit_mib, threads):
    # The ranges are checked by the Go side, which names the options by
    # these keywords in its messages; C's types must hold the values for that.
    m = _int(mem_limit_mib, "mem_limit_mib")
    t = _int(threads, "threads")
    return max(min(m, 1 << 62), -1), max(min(t, 1 << 30), -1)


def _index_dir(index_dir):
    """index_dir as the C functions take it: None is $CSVIDX_INDEX_DIR, read
    at each call as the CLI reads it at each run; "" (or an empty variable)
    means next to the CSV."""
    if index_dir is None:
        index_dir = os.environ.get(INDEX_DIR_ENV, "")
    return _path(index_dir, "index_dir")


def _json(ptr):
    return json.loads(_n.take(ptr))


def build(path, key, *, no_header=False, delimiter=",", mem_limit_mib=DEFAULT_MEM_LIMIT_MIB, threads=0,
          tmp_dir=None, index_path=None, index_dir=None, no_wait=False, gzip_span_kib=1024):
    """Index the CSV at path by key, as ``csvidx build`` does, and return
    the new index's description (``csvidx info --json``).

    key is a header field's name or, when no header field has that name, a
    0-based column number (an int or its text); a tuple of those is a
    composite key, as is their text as one CSV record ("user_id,status").
    A list builds an index by each of its keys in one scan of the file
    (``key=["user_id", ("user_id", "status")]``) and returns a list of
    descriptions. The first index of a file is PATH.csvidx, the others
    PATH.by-COLUMNS.csvidx; index_path puts a single index anywhere.
    index_dir keeps them in that directory instead, named after path's
    absolute path (DIR/BASE.HASH.csvidx, as ``csvidx --index-dir``): by
    default $CSVIDX_INDEX_DIR, "" for next to the CSV. Every function that
    finds an index takes index_dir too, and index_path wins over it.
    delimiter is one byte ("\\t" for TSV). mem_limit_mib bounds the memory of
    the index records (beyond it they spill to tmp_dir, next to the index by
    default); threads is 0 for all cores. A build waits for another writer
    of the same index unless no_wait. A compressed path (BGZF, zstd in
    frames, plain gzip) is read as it is; for plain gzip, gzip_span_kib is
    the KiB of plain bytes between the index's inflate checkpoints (a
    lookup inflates up to that; each takes about 8 KB of index). The GIL is
    released during the build."""
    several = isinstance(key, list)
    specs = [_keys.key_spec(k) for k in (key if several else [key])]
    delim = _text(delimiter, "delimiter")
    mem, thr = _resources(mem_limit_mib, threads)
    buf = _n.pack_keys(specs)
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_build(_path(path), buf, len(buf), len(specs), bool(no_header), delim, mem, thr,
                                 _path(tmp_dir, "tmp_dir"), _path(index_path, "index_path"), _index_dir(index_dir),
                                 bool(no_wait), _int(gzip_span_kib, "gzip_span_kib"), _n.byref(out), _n.byref(err)), err)
    r = _json(out)  # an array for several keys, an object for one
    return [r] if several and len(specs) == 1 else r


def _indexes(path, index_path, by, index_dir):
    """The index paths a maintenance call acts on: the one index_path or by
    names (None: Go finds it), else each of the file's in index_dir (as
    _index_dir gives it)."""
    if index_path is not None or by is not None:
        return [index_path], False
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_indexes(_path(path), index_dir, _n.byref(out), _n.byref(err)), err)
    paths = _json(out) or [None]
    return paths, len(paths) > 1


def update(path, *, paths=None, no_compact=False, mem_limit_mib=DEFAULT_MEM_LIMIT_MIB, threads=0, tmp_dir=None,
           index_path=None, index_dir=None, by=None, no_wait=False):
    """Index the rows appended to the CSV at path since it was indexed, as
    ``csvidx update`` does: into the tail, merged into the main index when
    the tail reaches a tenth of it unless no_compact. Returns a dict:
    ``action`` ("none", "tail", "compact" or "rebuild"), ``new_bytes`` and
    ``info``. A file of several indexes has each updated, in one scan of
    the appended rows, and a list of those dicts returned, unless by (a
    key, as build takes it) or index_path picks one. An open Index keeps its snapshot: open a new one
    to see the rows.

    When path is the manifest of an index over many files, the update adds
    files to it, as ``csvidx update MANIFEST`` does: the files among paths
    (paths or patterns, a str or a list) that it does not list, in that
    order, or with paths None those its build's patterns or list name now
    (see plan_update). They go after the others, their rows into a new
    layer of index files. Returns a dict: ``added`` (the files, [] when
    there was none to add), ``new_bytes`` (theirs), ``indexed`` (the bytes
    indexed: theirs, and those of the last layers indexed again with
    them), ``run`` and ``layers`` (the manifest's afterwards). Map tasks
    run threads at a time, and mem_limit_mib bounds each reduce; no_wait
    has no effect (of two updates at once, the later commit fails and
    leaves the index as the first made it), no_compact and by do not
    apply."""
    if index_path is None and _is_manifest(path):
        return _update_many(path, paths, no_compact, mem_limit_mib, threads, tmp_dir, by)
    if paths is not None:
        raise CsvIdxError(f"paths: {os.fsdecode(os.fspath(path))} is no index over many files (a manifest); "
                          "paths are the files to add to one")
    mem, thr = _resources(mem_limit_mib, threads)
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_update(_path(path), bool(no_compact), mem, thr, _path(tmp_dir, "tmp_dir"),
                                  _path(index_path, "index_path"), _index_dir(index_dir), _by(by), bool(no_wait),
                                  _n.byref(out), _n.byref(err)), err)
    return _one_or_all(_json(out))


# How every manifest starts, as multifile.IsManifest (manifest.go's
# manifestStart) tells one.
_MANIFEST_START = b'{"format":"csvidx-manifest"'


def _is_manifest(path):
    """Whether path is a regular file that starts as a manifest does, as
    multifile.IsManifest tells: the index over many files that the csvidx
    command's update takes it for."""
    p = _path(path)
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):
            return False  # a FIFO or a device is no manifest, and opening it may block
        with open(p, "rb") as f:
            return f.read(len(_MANIFEST_START)) == _MANIFEST_START
    except OSError:
        return False


def _update_many(manifest, paths, no_compact, mem_limit_mib, threads, tmp_dir, by):
    """update of the index over many files whose manifest is manifest."""
    name = os.fsdecode(os.fspath(manifest))
    if no_compact:
        raise CsvIdxError("no_compact=True: an index over many files has no tail to merge, but layers, "
                          "which update keeps few by itself; leave it out")
    if by is not None:
        raise CsvIdxError(f"{name} is an index over many files, by one key: by picks among one file's indexes; "
                          "leave it out")
    mem, thr = _resources(mem_limit_mib, threads)
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_update_many(_path(manifest, "manifest"), _files_json(paths), mem, thr,
                                       _path(tmp_dir, "tmp_dir"), _n.byref(out), _n.byref(err)), err)
    return _json(out)


def _one_or_all(r):
    """The results, one per index: the list for several indexes, the one
    result for one."""
    return r[0] if len(r) == 1 else r


def compact(path, *, index_path=None, index_dir=None, by=None, no_wait=False):
    """Merge the tail of the index of path into its main index, as
    ``csvidx compact`` does, and return the index's description (a list of
    them for a file of several indexes, unless by or index_path picks one)."""
    by_b, dir_b = _by(by), _index_dir(index_dir)
    paths, several = _indexes(path, index_path, by, dir_b)
    results = []
    for p in paths:
        out, err = _n.out_ptr(), _n.out_ptr()
        _n.check(_n.lib.csvidx_compact(_path(path), _path(p, "index_path"), dir_b, by_b, bool(no_wait),
                                       _n.byref(out), _n.byref(err)), err)
        results.append(_json(out))
    return results if several else results[0]


def _by(by):
    """The key spec of by (see build's key), as bytes, or None."""
    return None if by is None else _keys.key_spec(by)


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    """What csvidx.verify found. True when the index equals a fresh build."""
    equal: bool
    differences: list  # one finding a line, as csvidx verify prints them
    bytes_behind: int  # CSV bytes appended since the build: not compared

    def __bool__(self):
        return self.equal


def verify(path, *, mem_limit_mib=DEFAULT_MEM_LIMIT_MIB, threads=0, tmp_dir=None, index_path=None, index_dir=None,
           by=None):
    """Rebuild the index of path in memory and compare it with the index
    file byte for byte, as ``csvidx verify`` does. A difference (a broken or
    stale index included) is a VerifyResult with equal False, not an error;
    errors are for what stops the comparison, such as a missing index. A
    file of several indexes has each verified, the main indexes in one scan
    and their tails in another (equal only if each is, the differences of
    all), unless by or index_path picks one."""
    mem, thr = _resources(mem_limit_mib, threads)
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_verify(_path(path), mem, thr, _path(tmp_dir, "tmp_dir"), _path(index_path, "index_path"),
                                  _index_dir(index_dir), _by(by), _n.byref(out), _n.byref(err)), err)
    rs = _json(out)
    differences = [d for x in rs for d in (x["differences"] or [])]
    return VerifyResult(all(bool(x["equal"]) for x in rs), differences,
                        max(int(x["bytes_behind"]) for x in rs))


def join(left, right, key, out, *, how="inner", right_key=None, no_header=False, delimiter=",", nulls=False,
         coalesce=False, prefix_left="", prefix_right="", mem_limit_mib=DEFAULT_MEM_LIMIT_MIB, threads=0,
         tmp_dir=None, index_dir=None):
    """Join the CSV at left with the indexed CSV at right, as ``csvidx join``
    does, and write the result to the file out. Returns the number of data
    rows written.

    out is treated as the shell's ``> out`` treats it, but a regular file is
    replaced whole once the join is done (through a symbolic link, its
    target), keeping its permission bits; a new one gets 0666 less the
    umask, and is not left behind by a join that fails. A FIFO or a
    character device is written through, not replaced (a FIFO waits for its
    reader). "", a directory, a socket and a block device are refused
    before left is read; left, right and right's index files (through any
    link) before the join starts.

    how is "inner", "left", "semi", "anti", "right", "full", "right_semi"
    or "right_anti" (right's header and rows alone: those some row of left
    matched, each once, or those none did, in right's order, as written
    when right's delimiter is left's). key is left's key, as build takes it
    (a tuple for a composite key); right must be indexed by right_key, by
    default the names left's header gives key's columns, in index_dir as
    build takes it. delimiter and no_header are left's. coalesce prints the
    key once, as SQL's USING and ``csvidx join --coalesce`` do: right's key
    columns are left out, and a right row no left row matched keeps its key
    in left's key columns (not with the semi and anti joins). Memory does
    not grow with either file; read the result with pandas as any CSV.
    how="right", "full", "right_semi" and "right_anti" keep a bitmap of
    right's rows (1/16 of right's indexed bytes at most), in memory up to
    mem_limit_mib, else in a temporary file in tmp_dir (next to right's
    index by default) that vanishes with the join; threads is the workers,
    0 for all cores.
    The GIL is released during the join."""
    rows = _n.ctypes.c_int64()
    err = _n.out_ptr()
    rk = None if right_key is None else _keys.key_spec(right_key)
    mem, thr = _resources(mem_limit_mib, threads)
    _n.check(_n.lib.csvidx_join(_path(left, "left"), _path(right, "right"), _keys.key_spec(key), rk,
                                _text(how, "how"), bool(no_header), _text(delimiter, "delimiter"), bool(nulls),
                                bool(coalesce), _text(prefix_left, "prefix_left"), _text(prefix_right, "prefix_right"), mem, thr,
                                _path(tmp_dir, "tmp_dir"), _index_dir(index_dir), _path(out, "out"), _n.byref(rows),
                                _n.byref(err)), err)
    return rows.value


def _pandas():
    try:
        import pandas  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        raise ImportError("csvidx.Index.get needs pandas (Debian: apt-get install python3-pandas; "
                          "or pip install pandas); get_bytes and count do not") from e
    return pandas


class Index:
    """An open index of a CSV file: lookups of its key column.

    Opening maps the index files and the CSV and loads nothing, so it takes
    a fraction of a millisecond. The Index sees the files as they were when
    it was opened (rows appended later are not found: see bytes_behind); a
    missing, broken or stale index is a CsvIdxError that says what to do.
    It is safe to use from several threads at once: lookups release the GIL
    and run in parallel. Close it with close() or a with block. by picks one
    of the file's indexes by its key, index_path names an index file, and
    index_dir is where the file's indexes are (see build).

    >>> with csvidx.Index("orders.csv") as idx:
    ...     df = idx.get(8841207)
    """

    _handle = 0

    def __init__(self, path, *, index_path=None, index_dir=None, by=None):
        self._path = os.fspath(path)
        h, err = _n.out_i64(), _n.out_ptr()
        _n.check(_n.lib.csvidx_open(_path(path), _path(index_path, "index_path"), _index_dir(index_dir), _by(by),
                                    _n.byref(h), _n.byref(err)), err)
        self._handle = h.value
        self._meta = None
        behind = self.bytes_behind
        if behind > 0:
            warnings.warn(f"{behind} bytes at the end of {self._path} are not indexed; csvidx.update will add them",
                          CsvIdxWarning, stacklevel=2)

    # --- lookups ---

    def get_bytes(self, keys):
        """The rows whose key is keys (one key, or a collection of keys):
        their bytes verbatim, each through its line terminator, in file
        order, each row once; no header. b"" when nothing matches."""
        ks, _ = self._to_list(keys)
        return self._rows(ks, False)

    def get(self, keys, **read_csv_kwargs):
        """The rows whose key is keys (one key, or a collection of keys) as a
        pandas DataFrame, in file order, each row once.

        The frame is what ``pandas.read_csv`` makes of the header followed by
        the rows found, with the index's delimiter (for a CSV without a
        header: header=None, so the columns are 0, 1, ...), and the key column
        read as text (dtype str), so "007" stays "007". read_csv_kwargs go to
        read_csv and win over these defaults (dtype=... for the key column
        too). Column types are inferred from the rows found, not the whole
        file: pass dtype= for stable types. When nothing matches, the frame
        is empty with the CSV's columns.

        Keys are text by design, so the key column comes back as text
        (object dtype) even when it holds numbers: merging the frame on it
        with an int column raises. Type it on the way in, with
        dtype={"user_id": "int64"}, or cast it after:
        df["user_id"].astype("int64")."""
        pd = _pandas()
        ks, _ = self._to_list(keys)
        meta = self._metadata()
        data = self._rows(ks, meta["header"])
        kw = dict(read_csv_kwargs)
        if "sep" not in kw and "delimiter" not in kw:
            kw["sep"] = meta["delimiter"]
        if not meta["header"]:
            kw.setdefault("header", None)
        self._key_as_text(kw, meta)
        if "low_memory" not in kw and len(data) <= _SMALL_RESULT:
            kw["low_memory"] = False
        if not meta["header"] and not data:  # nothing found: the columns of the first row
            kw["nrows"] = 0
            data = self._first_record()
        if not data:  # an empty CSV: no columns at all
            return pd.DataFrame()
        return pd.read_csv(io.BytesIO(data), **kw)

    def count(self, keys):
        """How many rows each key has, without copying them into Python: an
        int for one key, a dict {key: count} in request order for a
        collection (bytearray and memoryview keys become bytes). The count is
        exact: the candidate rows' keys are compared, as get compares them.
        (An index written before format 2 counts its records of the key's
        64-bit hash, reading no row: the row count unless two keys share a
        hash.)"""
        composite, delim = self._composite()
        if _keys.is_single(keys, composite):
            ks = [_keys.one_key(keys, composite, delim)]
            return self._counts(ks)[0]
        given = {}
        for k in keys:
            b = _keys.one_key(k, composite, delim)
            if isinstance(k, (bytearray, memoryview)):
                k = b
            given.setdefault(k, b)
        counts = self._counts(list(given.values()))
        return dict(zip(given, counts))

    # --- description ---

    @property
    def path(self):
        """The CSV's path, as given."""
        return self._path

    @property
    def bytes_behind(self):
        """How many bytes the CSV had grown by, when this Index was opened,
        since it was indexed: rows there are not found until csvidx.update
        indexes them (and a new Index is opened)."""
        n, err = _n.out_i64(), _n.out_ptr()
        _n.check(_n.lib.csvidx_bytes_behind(self._h(), _n.byref(n), _n.byref(err)), err)
        return n.value

    @property
    def header(self):
        """The CSV's header record verbatim (ending with a newline), or None
        when the index was built with no_header."""
        if not self._metadata()["header"]:
            return None
        out, n, err = _n.out_ptr(), _n.out_i64(), _n.out_ptr()
        _n.check(_n.lib.csvidx_header(self._h(), _n.byref(out), _n.byref(n), _n.byref(err)), err)
        return _n.take(out, n.value)

    @property
    def info(self):
        """The index's description, as ``csvidx info --json`` prints it."""
        out, err = _n.out_ptr(), _n.out_ptr()
        _n.check(_n.lib.csvidx_info(self._h(), _n.byref(out), _n.byref(err)), err)
        return _json(out)

    def close(self):
        """Release the mappings and files. Lookups in progress in other
        threads finish first. Closing twice is harmless."""
        h, self._handle = self._handle, 0
        if h:
            err = _n.out_ptr()
            _n.check(_n.lib.csvidx_close(h, _n.byref(err)), err)

    @property
    def closed(self):
        return not self._handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except
            pass  # at interpreter exit the library may be gone already

    def __repr__(self):
        state = "closed" if self.closed else "open"
        return f"<csvidx.Index {self._path!r} {state}>"

    # --- internals ---

    def _h(self):
        h = self._handle
        if not h:
            raise CsvIdxError(f"the index of {self._path} is closed")
        return h

    def _rows(self, ks, with_header):
        buf = _n.pack_keys(ks)
        out, n, err = _n.out_ptr(), _n.out_i64(), _n.out_ptr()
        status = _n.lib.csvidx_get(self._h(), buf, len(buf), len(ks), with_header, _n.byref(out), _n.byref(n),
                                   _n.byref(err))
        _n.check(status, err)
        return _n.take(out, n.value)

    def _counts(self, ks):
        buf = _n.pack_keys(ks)
        counts = _n.counts_array(len(ks))
        err = _n.out_ptr()
        _n.check(_n.lib.csvidx_count(self._h(), buf, len(buf), len(ks), counts, _n.byref(err)), err)
        return list(counts)

    def _composite(self):
        """Whether the index's key is composite, and the file's delimiter."""
        m = self._metadata()
        return m["composite"], m["delimiter"].encode()

    def _to_list(self, keys):
        composite, delim = self._composite()
        return _keys.to_list(keys, composite, delim)

    def _first_record(self):
        out, n, err = _n.out_ptr(), _n.out_i64(), _n.out_ptr()
        _n.check(_n.lib.csvidx_first_record(self._h(), _n.byref(out), _n.byref(n), _n.byref(err)), err)
        return _n.take(out, n.value)

    def _metadata(self):
        m = self._meta
        if m is None:
            info = self.info
            m = self._meta = {
                "header": bool(info["header"]),
                "delimiter": info["delimiter"],
                "key_column": int(info["key_column"]),
                "key_name": info.get("key_name"),
                "composite": len(info.get("key_columns") or []) > 1,
                "key_columns": info.get("key_columns") or [int(info["key_column"])],
            }
        return m

    def _drop_cache(self):
        """Evict the index's and the CSV's pages from memory, so the next
        lookup reads from storage (for cold-cache benchmarks; Linux only)."""
        err = _n.out_ptr()
        _n.check(_n.lib.csvidx_drop_cache(self._h(), _n.byref(err)), err)

    def _key_as_text(self, kw, meta):
        """Make read_csv read the key columns as str unless the caller typed
        them (or typed every column with one dtype)."""
        names = kw.get("names")
        labels = []
        for i, col in enumerate(meta["key_columns"]):
            if names is not None and len(names) > col:
                label = list(names)[col]
            elif meta["header"] and kw.get("header", "infer") not in (None,):
                label = self._header_names()[i] if meta["composite"] else meta["key_name"]
                if label is None:
                    label = col
            else:
                label = col
            labels.append((col, label))
        dtype = kw.get("dtype")
        if dtype is None:
            kw["dtype"] = {label: str for _, label in labels}
        elif isinstance(dtype, Mapping):
            extra = {label: str for col, label in labels if label not in dtype and col not in dtype}
            if extra:
                kw["dtype"] = {**dtype, **extra}

    def _header_names(self):
        """The header's names of a composite key's columns, in its order (None
        for a column the header lacks)."""
        rec = next(csv.reader(io.StringIO(self.header.decode("utf-8", "surrogateescape")),
                              delimiter=self._metadata()["delimiter"]), [])
        return [rec[c] if c < len(rec) else None for c in self._metadata()["key_columns"]]


# --- the four steps of an index over many files (see csvidx.dask) ---

def plan(paths, key, manifest, *, partitions=0, split_mib=256, no_header=False, delimiter=","):
    """Plan a build of one index over the files paths (paths or patterns
    such as "orders/*.csv"), by key, whose manifest goes to manifest, as
    ``csvidx plan`` does: the files' headers are checked and their
    concatenation is cut into map tasks of about split_mib, and into
    partitions index files (0: one per GiB of the files). The manifest
    records the patterns among paths, for update and plan_update to look
    for new files there. Returns {"plan": path, "run": ..., "tasks": n,
    "partitions": p}."""
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_plan(_files_json(paths), _keys.key_spec(key), _path(manifest, "manifest"), bool(no_header),
                                _text(delimiter, "delimiter"), _int(partitions, "partitions"),
                                _int(split_mib, "split_mib"), _n.byref(out), _n.byref(err)), err)
    return _json(out)


def plan_update(manifest, paths=None, *, split_mib=256):
    """Plan an update of the index over many files whose manifest is
    manifest, as ``csvidx plan --update`` does: the files among paths
    (paths or patterns, a str or a list) that it does not list, in that
    order, or with paths None those its build's patterns or list name now,
    go after the others, and the plan's map and reduce tasks index them
    into a new layer (with the last layers, when they are small beside
    them), with the index's key, dialect and partitions; commit then
    publishes it, if the manifest is still the one the plan adds to. The
    files it lists must not have changed, and every new file must have
    their header. Returns what plan returns and ``added``, the files the
    plan adds; when there is none to add, no plan is written:
    {"plan": None, "run": None, "tasks": 0, "partitions": 0, "added": []}."""
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_plan_update(_path(manifest, "manifest"), _files_json(paths), _int(split_mib, "split_mib"),
                                       _n.byref(out), _n.byref(err)), err)
    return _json(out)


def _files_json(paths):
    """paths (a path or pattern, or a collection of them) as the JSON array
    of the C functions' files_json; None is None."""
    if paths is None:
        return None
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    return json.dumps([os.fsdecode(os.fspath(p)) for p in paths]).encode()


def map_task(plan_path, task):
    """Run map task number task of the plan at plan_path, as ``csvidx map``
    does, and return what it found (its .done file's contents)."""
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_map(_path(plan_path, "plan"), _int(task, "task"), _n.byref(out), _n.byref(err)), err)
    return _json(out)


def reduce_task(plan_path, partition, *, mem_limit_mib=DEFAULT_MEM_LIMIT_MIB, threads=1, tmp_dir=None):
    """Write partition number partition's index file of the plan at
    plan_path, as ``csvidx reduce`` does, once every map task has run;
    return its description."""
    mem, thr = _resources(mem_limit_mib, threads)
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_reduce(_path(plan_path, "plan"), _int(partition, "partition"), mem, thr,
                                  _path(tmp_dir, "tmp_dir"), _n.byref(out), _n.byref(err)), err)
    return _json(out)


def commit(plan_path):
    """Check the outputs of the plan at plan_path and publish its manifest,
    as ``csvidx commit`` does. Returns {"manifest", "run", "files",
    "partitions", "size", "layers"}."""
    out, err = _n.out_ptr(), _n.out_ptr()
    _n.check(_n.lib.csvidx_commit(_path(plan_path, "plan"), _n.byref(out), _n.byref(err)), err)
    return _json(out)
