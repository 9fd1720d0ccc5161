"""The csvidx shared library (built from python/capi) and its C functions.

The library is loaded with ``ctypes.CDLL``, which releases the GIL for the
whole of every foreign call: while Go looks keys up, other Python threads
run, and lookups from several threads run in parallel. (``ctypes.PyDLL``
would hold the GIL; tests/test_threads.py fails if it is used.)

The conventions of the C functions are in python/capi/main.go: each returns
0 or -1 and, on -1, a malloc'ed message in ``*err`` that is freed here.
"""

import ctypes
import os
import struct

from ._errors import CsvIdxError

LIBRARY_NAME = "_libcsvidx.so"
ABI_VERSION = 10  # must equal abiVersion in python/capi/main.go

_c_int = ctypes.c_int
_c_i64 = ctypes.c_int64
_c_str = ctypes.c_char_p  # bytes passed in: no copy, the pointer of the bytes object
_c_void_p = ctypes.c_void_p
_out_ptr = ctypes.POINTER(ctypes.c_void_p)  # char **: pointers we free ourselves
_out_i64 = ctypes.POINTER(ctypes.c_int64)

# name: (restype, argtypes)
_SIGNATURES = {
    "csvidx_abi_version": (_c_int, []),
    "csvidx_free": (None, [_c_void_p]),
    "csvidx_build": (_c_int, [_c_str, _c_str, _c_i64, _c_i64, _c_int, _c_str, _c_i64, _c_int, _c_str, _c_str,
                              _c_str, _c_int, _c_i64, _out_ptr, _out_ptr]),
    "csvidx_indexes": (_c_int, [_c_str, _c_str, _out_ptr, _out_ptr]),
    "csvidx_update": (_c_int, [_c_str, _c_int, _c_i64, _c_int, _c_str, _c_str, _c_str, _c_str, _c_int, _out_ptr,
                               _out_ptr]),
    "csvidx_compact": (_c_int, [_c_str, _c_str, _c_str, _c_str, _c_int, _out_ptr, _out_ptr]),
    "csvidx_verify": (_c_int, [_c_str, _c_i64, _c_int, _c_str, _c_str, _c_str, _c_str, _out_ptr, _out_ptr]),
    "csvidx_join": (_c_int, [_c_str, _c_str, _c_str, _c_str, _c_str, _c_int, _c_str, _c_int, _c_int, _c_str, _c_str, _c_i64,
                             _c_int, _c_str, _c_str, _c_str, _out_i64, _out_ptr]),
    "csvidx_open": (_c_int, [_c_str, _c_str, _c_str, _c_str, _out_i64, _out_ptr]),
    "csvidx_info": (_c_int, [_c_i64, _out_ptr, _out_ptr]),
    "csvidx_get": (_c_int, [_c_i64, _c_str, _c_i64, _c_i64, _c_int, _out_ptr, _out_i64, _out_ptr]),
    "csvidx_count": (_c_int, [_c_i64, _c_str, _c_i64, _c_i64, _c_void_p, _out_ptr]),
    "csvidx_header": (_c_int, [_c_i64, _out_ptr, _out_i64, _out_ptr]),
    "csvidx_first_record": (_c_int, [_c_i64, _out_ptr, _out_i64, _out_ptr]),
    "csvidx_bytes_behind": (_c_int, [_c_i64, _out_i64, _out_ptr]),
    "csvidx_drop_cache": (_c_int, [_c_i64, _out_ptr]),
    "csvidx_close": (_c_int, [_c_i64, _out_ptr]),
    "csvidx_plan": (_c_int, [_c_str, _c_str, _c_str, _c_int, _c_str, _c_int, _c_i64, _out_ptr, _out_ptr]),
    "csvidx_map": (_c_int, [_c_str, _c_i64, _out_ptr, _out_ptr]),
    "csvidx_reduce": (_c_int, [_c_str, _c_i64, _c_i64, _c_int, _c_str, _out_ptr, _out_ptr]),
    "csvidx_commit": (_c_int, [_c_str, _out_ptr, _out_ptr]),
    "csvidx_plan_update": (_c_int, [_c_str, _c_str, _c_i64, _out_ptr, _out_ptr]),
    "csvidx_update_many": (_c_int, [_c_str, _c_str, _c_i64, _c_int, _c_str, _out_ptr, _out_ptr]),
}

_BUILD_HINT = ("build it with python/build.sh (needs Go and gcc), or install the package "
               "with pip install ./python")


def library_path():
    """Where the library is: $CSVIDX_LIBRARY, or next to this file."""
    return os.environ.get("CSVIDX_LIBRARY") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             LIBRARY_NAME)


def _load():
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(f"csvidx: the native library {path} is missing; {_BUILD_HINT}")
    lib = ctypes.CDLL(path)  # CDLL, not PyDLL: calls release the GIL
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name, None)
        if fn is None:
            raise ImportError(f"csvidx: {path} has no function {name}: it is stale; {_BUILD_HINT}")
        fn.restype = restype
        fn.argtypes = argtypes
    version = lib.csvidx_abi_version()
    if version != ABI_VERSION:
        raise ImportError(f"csvidx: {path} speaks ABI {version}, this package {ABI_VERSION}: "
                          f"it is stale; {_BUILD_HINT}")
    return lib


lib = _load()
_free = lib.csvidx_free
_string_at = ctypes.string_at


def take(ptr, n=-1):
    """The bytes at the malloc'ed ptr (a c_void_p), NUL-terminated when n is
    -1, and free them. A NULL pointer is b""."""
    p = ptr.value
    if not p:
        return b""
    try:
        return _string_at(p, n)
    finally:
        _free(p)


def check(status, err):
    """Raise CsvIdxError with the library's message when status says so."""
    if status != 0:
        raise CsvIdxError(take(err).decode("utf-8", "replace"))


def out_ptr():
    return ctypes.c_void_p()


def out_i64():
    return ctypes.c_int64()


byref = ctypes.byref

_u32 = struct.Struct("<I").pack


def pack_keys(keys):
    """One buffer of length-prefixed keys (a list of bytes), as the C
    functions take them."""
    if len(keys) == 1:
        k = keys[0]
        return _u32(len(k)) + k
    parts = []
    append = parts.append
    for k in keys:
        append(_u32(len(k)))
        append(k)
    return b"".join(parts)


def counts_array(n):
    return (ctypes.c_int64 * n)()
