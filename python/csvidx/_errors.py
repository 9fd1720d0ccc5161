"""The errors and warnings of csvidx."""


class CsvIdxError(Exception):
    """An error of csvidx: a missing, stale or broken index, a file that
    cannot be read, a bad option. Its message says what is wrong as the
    csvidx command does on standard error (without the "csvidx: " prefix),
    and what to do in Python's words (for example "...; call
    csvidx.build('orders.csv', key='user_id')")."""


class CsvIdxWarning(UserWarning):
    """The CSV has grown since it was indexed: the rows appended are not
    found until csvidx.update indexes them."""
