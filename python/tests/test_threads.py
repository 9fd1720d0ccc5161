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
    """While one thread looks up the heavy key (Go copies 150,000 rows, a
    few milliseconds), another thread that wakes every 0.2 ms keeps ticking.
    With the GIL held during the foreign call, it could not tick at all
    until the call returned: about one tick a lookup, at its edges."""
    path, rows_by_key = oracle
    idx = csvidx.Index(path)
    want = len(rows_by_key["H"])
    assert idx.get_bytes("H").count(b"\n") == want  # warm the page cache

    ticks, calls = [], []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0002)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        time.sleep(0.02)
        for _ in range(30):
            t0 = time.perf_counter()
            data = idx.get_bytes("H")
            calls.append((t0, time.perf_counter()))
    finally:
        stop.set()
        ticker.join()
        idx.close()
    assert data.count(b"\n") == want
    inside = sorted(sum(t0 < t < t1 for t in ticks) for t0, t1 in calls)
    median_ms = 1000 * sorted(t1 - t0 for t0, t1 in calls)[len(calls) // 2]
    print(f"another thread ticked {inside} times during each of {len(calls)} lookups (median {median_ms:.1f} ms)")
    assert inside[len(inside) // 2] >= 5, (f"the GIL seems held during lookups: another thread ticked {inside} times "
                                           f"during each of {len(calls)} lookups (median {median_ms:.1f} ms)")


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
