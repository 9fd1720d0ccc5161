"""Remote CSVs from Python (issue 41): csvidx.Index opens a CSV at an
http URL through its index next to it (URL.csvidx and its fence), fetched
in part, and answers as the local file's index does. The server is
Python's own, with byte ranges, strong ETags and If-Match, on 127.0.0.1."""

import hashlib
import http.server
import os
import re
import threading

import pytest

import csvidx

from conftest import ORDER_ROWS, CSVFile


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves the files of the server's root by byte ranges (one range a
    request: bytes=A-B, bytes=A- or bytes=-N), with a strong ETag of each
    file's bytes, honouring If-Match; counts the requests."""

    def do_GET(self):
        self.server.requests += 1
        path = os.path.join(self.server.root, self.path.lstrip("/"))
        if not os.path.isfile(path):
            return self.answer(404, b"<Error><Code>NoSuchKey</Code></Error>")
        with open(path, "rb") as f:
            data = f.read()
        etag = '"%s"' % hashlib.sha1(data).hexdigest()
        if self.headers.get("If-Match") not in (None, etag):
            return self.answer(412, b"", etag)
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
        if m is None:
            return self.answer(200, data, etag)
        first, last = m.groups()
        if first == "":
            first, last = max(0, len(data) - int(last)), len(data) - 1
        else:
            first, last = int(first), min(int(last or len(data) - 1), len(data) - 1)
        if first >= len(data):
            return self.answer(416, b"", etag, f"bytes */{len(data)}")
        self.answer(206, data[first:last + 1], etag, f"bytes {first}-{last}/{len(data)}")

    def answer(self, code, body, etag=None, content_range=None):
        self.send_response(code)
        if etag:
            self.send_header("ETag", etag)
        if content_range:
            self.send_header("Content-Range", content_range)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    srv.root, srv.requests = str(root), 0
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv, root, f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()


def test_remote_reads_as_local(tmp_path, server, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    srv, root, base = server
    header = ["order_id", "user_id", "amount", "comment"]
    plain = CSVFile(root / "orders.csv", header, ORDER_ROWS, key_col=1)
    csvidx.build(plain.path, key="user_id")
    keys = sorted({r[1] for r in ORDER_ROWS})
    url = base + "/orders.csv"
    with csvidx.Index(url) as r, csvidx.Index(plain.path) as p:
        for k in keys[:50] + ["absent"]:
            assert r.get_bytes(k) == p.get_bytes(k), k
        assert r.count(keys) == p.count(keys)
        assert r.header == p.header
        assert r.get(keys[:5]).equals(p.get(keys[:5]))
        assert r.info["rows"] == p.info["rows"]
    with pytest.raises(csvidx.CsvIdxError, match="does not exist; build it"):
        csvidx.Index(base + "/none.csv")

    # The CSV replaced on the server: an opening finds the index stale.
    with open(plain.path, "r+b") as f:
        f.write(b"X")
    with pytest.raises(csvidx.CsvIdxError, match="stale"):
        csvidx.Index(url)
