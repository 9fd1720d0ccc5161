"""Lookups from many Python threads: right answers, and the GIL released.

test_gil_is_released_during_lookups fails if the library were loaded with
ctypes.PyDLL (which holds the GIL during foreign calls) instead of
ctypes.CDLL: checked by that mutation (see README, "Tests").
"""

import random
import threading
import time

import pytest

import csvidx

USERS = 20_000
ROWS_PER_USER = 4
HEAVY_ROWS = 150_000  # rows of the heavy key "H": one lookup that takes Go tens of milliseconds


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    """A CSV of 235,000 rows: 20,000 users of 4 rows each, the heavy key "H"
    on 150,000 rows and "M" on 5,000, interleaved; each key's rows (position, bytes)
    are kept as the oracle."""
    path = str(tmp_path_factory.mktemp("big") / "big.csv")
    rng = random.Random(7)
    keys = [str(u) for u in range(USERS) for _ in range(ROWS_PER_USER)] + ["H"] * HEAVY_ROWS + ["M"] * 5000
    rng.shuffle(keys)
    rows_by_key = {}
    with open(path, "wb") as f:
        f.write(b"id,user,note\n")
        for i, k in enumerate(keys):
            raw = f'{i},{k},{"x" if i % 7 else chr(34) + "a, b" + chr(34)}\n'.encode()
            f.write(raw)
            rows_by_key.setdefault(k, []).append((i, raw))
    csvidx.build(path, key="user")
    return path, rows_by_key


def expected_bytes(rows_by_key, keys):
    return b"".join(raw for _, raw in sorted(r for k in set(keys) for r in rows_by_key.get(k, [])))


def test_eight_threads_at_once(oracle):
    path, rows_by_key = oracle
    idx = csvidx.Index(path)
    start = threading.Barrier(8)
    errors = []
    checked = [0] * 8

    def worker(n):
        rng = random.Random(n)
        try:
            start.wait()
            for j in range(300):
                keys = [str(rng.randrange(USERS + 100)) for _ in range(rng.randint(1, 5))]  # some absent
                if j % 100 == 0:
                    keys.append("M")  # 5,000 rows
                got = idx.get_bytes(keys)
                assert got == expected_bytes(rows_by_key, keys), (n, j, keys)
                counts = idx.count(keys)
                assert counts == {k: len(rows_by_key.get(k, [])) for k in keys}
                if j % 30 == 0:
                    df = idx.get(keys)
                    assert list(df["id"]) == sorted(i for k in set(keys) for i, _ in rows_by_key.get(k, []))
                checked[n] += 1
        except Exception as e:  # pylint: disable=broad-except
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    idx.close()
    assert not errors, errors[0]
    assert checked == [300] * 8


def test_gil_is_released_during_lookups(oracle):
    """While one thread looks up the heavy key (Go copies 150,000 rows), a
    pure-Python thread keeps counting. With the GIL held during the foreign
    call, it could not count at all during that time."""
    path, rows_by_key = oracle
    idx = csvidx.Index(path)
    want = len(rows_by_key["H"])
    assert idx.get_bytes("H").count(b"\n") == want  # warm the page cache

    count = [0]
    stop = threading.Event()

    def spin():
        n = 0
        while not stop.is_set():
            n += 1
            count[0] = n

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.05)
        c0, t0 = count[0], time.perf_counter()
        time.sleep(0.2)  # the main thread idle: how fast the spinner counts alone
        rate = (count[0] - c0) / (time.perf_counter() - t0)
        during = elapsed = 0.0
        rounds = 0
        while rounds < 3 or elapsed < 0.4 and rounds < 100:  # enough lookup time to measure
            rounds += 1
            c0, t0 = count[0], time.perf_counter()
            data = idx.get_bytes("H")
            elapsed += time.perf_counter() - t0
            during += count[0] - c0
            assert data.count(b"\n") == want
    finally:
        stop.set()
        spinner.join()
        idx.close()
    share = during / (rate * elapsed)
    print(f"lookups took {elapsed * 1000:.0f} ms; the spinner counted {during:.0f} meanwhile, "
          f"{share:.0%} of its pace alone")
    assert share > 0.25, (f"the GIL seems held during lookups: another thread ran at {share:.0%} of its pace "
                          f"while {elapsed * 1000:.0f} ms of lookups ran")


def test_close_during_lookups(oracle):
    """close() while other threads look up: each lookup either answers in
    full or fails with CsvIdxError; none reads an unmapped file."""
    path, rows_by_key = oracle
    want = expected_bytes(rows_by_key, ["M"])
    idx = csvidx.Index(path)
    outcomes = []

    def worker():
        while True:
            try:
                got = idx.get_bytes("M")
            except csvidx.CsvIdxError as e:
                outcomes.append(str(e))
                return
            outcomes.append(got == want)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.1)
    idx.close()
    for t in threads:
        t.join()
    assert all(o is True or "closed" in o for o in outcomes), outcomes
    assert sum(1 for o in outcomes if o is not True) == 4
