"""Hostile stand-ins for the GitHub sync tests: the stand-in GitHub with answers overridden per path, another
host that records what reaches it, and an answer that drips one byte a second for ever."""

import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.core.servers import serve_in_thread
from tests.github.standin import StandInGitHub

SECRET_BODY = "internal-only: db_password=hunter2"


class Hostile(StandInGitHub):
    """The stand-in GitHub, but requests whose path contains a key of `overrides` are answered by its handler
    (which writes the whole answer itself)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.overrides: dict = {}

    def _handle(self, handler):
        for part, answer in self.overrides.items():
            if part in handler.path:
                self.log.append({"path": handler.path, "status": "hostile", "etag": None})
                return answer(handler)
        return super()._handle(handler)


class Elsewhere:
    """Another host (another origin: another port): records what it is sent, answers with a secret."""

    def __init__(self):
        self.seen: list[dict] = []
        elsewhere = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server API
                elsewhere.seen.append({"path": self.path, "authorization": self.headers.get("Authorization")})
                body = f'[{{"number": 1, "title": "{SECRET_BODY}"}}]'.encode()
                self.send_response(500)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        serve_in_thread(self.server)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def drip(handler):
    """Headers at once, then a byte every second: each read is quick, the answer never ends."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    try:
        for _ in range(120):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(1)
    except OSError:
        pass  # the client gave up: what the test wants
