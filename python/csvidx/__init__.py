"""csvidx: the rows of one key of a huge CSV file, in about a millisecond.

csvidx indexes a CSV by a column, or several, without importing it: the CSV stays as it
is and FILE.csvidx, next to it, maps key hashes to row offsets. This package
is the Go library behind a small C ABI (python/capi), loaded with ctypes; the
index files are the same as the csvidx command's.

    import csvidx
    csvidx.build("orders.csv", key="user_id")   # once (or: csvidx build ...)
    idx = csvidx.Index("orders.csv")             # maps the files, loads nothing
    df = idx.get(8841207)                        # a DataFrame of the user's rows
    df = idx.get([1, 2, 3], dtype={"amount": "float64"})  # kwargs go to read_csv
    idx.count([1, 2, 3])                         # {1: 8, 2: 5, 3: 0}, no rows copied
    idx.get_bytes(42)                            # the rows' CSV bytes, no header
    csvidx.update("orders.csv")                  # after rows were appended

    csvidx.build("orders.csv", key=["user_id", ("user_id", "status")])  # two indexes, one scan
    idx = csvidx.Index("orders.csv", by=("user_id", "status"))
    idx.get(("42", "shipped"))                   # a composite key: a field per column

    csvidx.build("/ro/orders.csv", key="user_id", index_dir="idx")  # indexes kept in idx/,
    idx = csvidx.Index("/ro/orders.csv", index_dir="idx")            # default $CSVIDX_INDEX_DIR

    import csvidx.dask                           # one index over many files, built by Dask
    csvidx.dask.build("orders/*.csv", "order_id", "orders.idx", partitions=8)
    idx = csvidx.Index("orders.idx")             # the manifest: lookups in every file
    csvidx.update("orders.idx")                  # adds the new files of orders/*.csv
    csvidx.dask.update("orders.idx", "orders/2026-12-07.csv")  # or those named, by Dask

Keys are compared byte for byte with the key field's text: "007" is not "7".
An int key means str(int); float, bool and None raise TypeError. Every
error of the library is a CsvIdxError with the message the command prints.
"""

from ._api import (DEFAULT_MEM_LIMIT_MIB, Index, VerifyResult, build, commit, compact, join, map_task, plan,
                   plan_update, reduce_task, update, verify)
from ._errors import CsvIdxError, CsvIdxWarning

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MEM_LIMIT_MIB",
    "CsvIdxError",
    "CsvIdxWarning",
    "Index",
    "VerifyResult",
    "build",
    "commit",
    "compact",
    "join",
    "map_task",
    "plan",
    "plan_update",
    "reduce_task",
    "update",
    "verify",
]
