"""The errors and warnings of csvidx."""


class CsvIdxError(Exception):
    """An error of csvidx: a missing, stale or broken index, a file that
    cannot be read, a bad option. Its message is the one the csvidx command
    prints on standard error, without the "csvidx: " prefix, and says what to
    do (for example "...; run csvidx build")."""


class CsvIdxWarning(UserWarning):
    """The CSV has grown since it was indexed: the rows appended are not
    found until csvidx.update indexes them."""
