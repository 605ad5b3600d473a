"""Hostile stand-ins for the GitHub sync tests: the stand-in GitHub with answers overridden per path, another
host that records what reaches it, a scripted server answering every request with one function, and answers
that drip one byte a second for ever, redirect, or never end."""

import json
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
                length = int(self.headers.get("Content-Length") or 0)
                elsewhere.seen.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "authorization": self.headers.get("Authorization"),
                        "body": self.rfile.read(length).decode() if length else "",
                    }
                )
                body = f'[{{"number": 1, "title": "{SECRET_BODY}"}}]'.encode()
                self.send_response(500)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET  # noqa: N815 - http.server API

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


class Scripted:
    """A server whose every request (GET or POST) is answered by `answer(handler, body)`; `seen` lists the
    requests' method and path. As a context manager it serves on a local port (`url`)."""

    def __init__(self, answer):
        self.answer = answer
        self.seen: list[tuple[str, str]] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                scripted.seen.append((self.command, self.path))
                try:
                    scripted.answer(self, body)
                except OSError:
                    pass  # the client hung up: what a refusal does

            do_POST = do_GET  # noqa: N815 - http.server API

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        serve_in_thread(self.server)
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        return False


def send_json(handler, status: int, body, headers: dict | None = None) -> None:
    payload = json.dumps(body).encode()
    handler.send_response(status)
    for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def redirect(handler, location: str, status: int = 302) -> None:
    """A redirect whose body is a secret: a client that reads it, or prints it, gives it away."""
    payload = json.dumps({"message": SECRET_BODY}).encode()
    handler.send_response(status)
    handler.send_header("Location", location)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def huge(handler, megabytes: int = 150, *, declare: bool = False) -> None:
    """A 200 whose JSON body is `megabytes` MB long, written a megabyte at a time (never held whole here);
    `declare` sends its Content-Length, otherwise it comes chunked."""
    head, tail = b'{"data": {"padding": "', b'"}}'
    block = b"x" * (1024 * 1024)
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    if declare:
        handler.send_header("Content-Length", str(len(head) + len(tail) + megabytes * len(block)))
    else:
        handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()

    def write(data: bytes) -> None:
        handler.wfile.write(data if declare else b"%x\r\n%s\r\n" % (len(data), data))

    write(head)
    for _ in range(megabytes):
        write(block)
    write(tail)
    if not declare:
        handler.wfile.write(b"0\r\n\r\n")
