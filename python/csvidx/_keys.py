"""Python values as csvidx keys.

A key is the text of the key field as written in the CSV, compared byte for
byte: "007" is not "7". So a key is given as text: a ``str`` (encoded as
UTF-8) or ``bytes``. An ``int`` means its decimal text, ``str(int)``, which
is what an integer id column holds. A ``float`` is refused, because 7.0 is
not the text "7" and 1e16 is not the text of any id; ``bool`` (an ``int``
subclass whose str is "True") and ``None`` are refused too: each is almost
always a mistake that would silently match nothing.
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


def is_single(keys):
    """Whether keys is one key rather than a collection of keys."""
    return keys is None or isinstance(keys, (str, bytes, bytearray, memoryview, numbers.Number))


def to_list(keys):
    """The bytes of one key or of each key of a collection, as a list, and
    whether one key was given."""
    if is_single(keys):
        return [key_bytes(keys)], True
    try:
        it = iter(keys)
    except TypeError:
        raise TypeError(f"csvidx keys are str, bytes or int, or a collection of them: "
                        f"{type(keys).__name__} is neither") from None
    return [key_bytes(k) for k in it], False
