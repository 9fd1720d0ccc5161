"""A small HTTP server of a directory's files by byte ranges, for the tests
of remote CSVs (issue 41) written in Python: one range a request (bytes=A-B,
bytes=A- or bytes=-N), a strong ETag of each file's bytes, If-Match
honoured (412 when it fails), 404 for a missing file; it counts requests.
On 127.0.0.1, on a free port, in a thread of its own."""

import hashlib
import http.server
import os
import re
import threading


class RangeHandler(http.server.BaseHTTPRequestHandler):
    """Serves the files of the server's root (see serve)."""

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


def serve(root):
    """Start serving the files under ROOT; return the server (shutdown()
    stops it; .requests counts) and its base URL."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    srv.root, srv.requests = str(root), 0
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"
