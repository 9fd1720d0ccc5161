"""Python values as csvidx keys.

A key is the text of the key field as written in the CSV, compared byte for
byte: "007" is not "7". So a key is given as text: a ``str`` (encoded as
UTF-8) or ``bytes``. An ``int`` means its decimal text, ``str(int)``, which
is what an integer id column holds. A ``float`` is refused, because 7.0 is
not the text "7" and 1e16 is not the text of any id; ``bool`` (an ``int``
subclass whose str is "True") and ``None`` are refused too: each is almost
always a mistake that would silently match nothing.

For an index of a composite key, one key is a tuple with a field per
column, each field a key as above (``("42", "shipped")``), or the fields as
one CSV record in the file's dialect (``"42,shipped"``); a list of those is
several keys. A tuple is quoted field by field into such a record, which
the library parses: both ways give the same key.
"""

import numbers


def key_bytes(k):
    """The bytes of one key, or TypeError."""
    t = type(k)
    if t is str:
        return k.encode("utf-8", "surrogateescape")
    if t is int:
        return str(k).encode()
    if t is bytes:
        return k
    if isinstance(k, bool) or type(k).__name__ == "bool_" or k is None or isinstance(k, float):
        raise TypeError(_refusal(k))
    if isinstance(k, str):  # numpy.str_ and other subclasses
        return str(k).encode("utf-8", "surrogateescape")
    if isinstance(k, (bytes, bytearray, memoryview)):
        return bytes(k)
    if isinstance(k, numbers.Integral):  # numpy integers
        return str(int(k)).encode()
    raise TypeError(_refusal(k))


def _refusal(k):
    kind = type(k).__name__
    if isinstance(k, float) or isinstance(k, numbers.Real) and not isinstance(k, numbers.Integral):
        why = (f"{k!r} is a {kind}; keys are compared as the text in the CSV, and a float's text "
               "is rarely the key's (pass str or int)")
    elif k is None:
        why = "None is not a key (the empty key is \"\")"
    elif isinstance(k, bool) or kind == "bool_":
        why = f"{k!r} is a bool, not a key (pass str or int)"
    else:
        why = f"{kind} is not a key type"
    return f"csvidx keys are str, bytes or int: {why}"


def is_single(keys, composite=False):
    """Whether keys is one key rather than a collection of keys; for a
    composite index, a tuple is one key."""
    if composite and isinstance(keys, tuple):
        return True
    return keys is None or isinstance(keys, (str, bytes, bytearray, memoryview, numbers.Number))


def one_key(k, composite=False, delim=b","):
    """The bytes of one key: for a composite index, a tuple of fields
    becomes one CSV record in the dialect of delim."""
    if composite and isinstance(k, tuple):
        return delim.join(b'"' + key_bytes(f).replace(b'"', b'""') + b'"' for f in k)
    return key_bytes(k)


def to_list(keys, composite=False, delim=b","):
    """The bytes of one key or of each key of a collection, as a list, and
    whether one key was given."""
    if is_single(keys, composite):
        return [one_key(keys, composite, delim)], True
    try:
        it = iter(keys)
    except TypeError:
        raise TypeError(f"csvidx keys are str, bytes or int, or a collection of them: "
                        f"{type(keys).__name__} is neither") from None
    return [one_key(k, composite, delim) for k in it], False


def key_spec(k):
    """The key spec of k, as build and by take it: a column's name or number,
    or for a composite key a tuple of them (or their text as one
    comma-separated CSV record), as bytes."""
    if isinstance(k, (tuple, list)):
        if not k:
            raise TypeError("a composite key needs columns: the tuple is empty")
        return b",".join(_spec_field(key_spec(c)) for c in k)
    if isinstance(k, bool) or k is None or isinstance(k, float):
        raise TypeError(f"a key column is a name (str) or a 0-based number (int), not {k!r}")
    return key_bytes(k)


def _spec_field(name):
    """A column's name as a field of a key spec: quoted if it needs it."""
    if any(c in name for c in (b",", b'"', b"\n", b"\r")):
        return b'"' + name.replace(b'"', b'""') + b'"'
    return name
