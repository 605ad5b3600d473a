"""A stand-in for Slack's incoming webhooks on a loopback port (real HTTP), recording every post.

It answers as Slack documents (https://api.slack.com/messaging/webhooks, "Handling errors"): `200 ok`; a scripted
`429` with `Retry-After` (rate limited) or `5xx`; `404 no_service` for a webhook that was removed and `410
channel_is_archived` for an archived channel. Each webhook is a path, `/services/T0/B<n>/<secret>`.
`hold_after(n)` makes post n+1 wait (before it is recorded, so not yet delivered) until `release()`: the test knows
the sender is mid-post and can kill it there.
"""

import json
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.core.servers import serve_in_thread


@dataclass
class Post:
    path: str
    payload: dict

    @property
    def text(self) -> str:
        return self.payload.get("text", "")

    @property
    def blocks(self) -> list[dict]:
        return self.payload.get("blocks", [])

    @property
    def mrkdwn(self) -> str:
        """Every text of the blocks, joined: what a reader of the channel sees."""
        out = []
        for block in self.blocks:
            if "text" in block:
                out.append(block["text"]["text"])
            for element in block.get("elements", []):
                out.append(element.get("text", ""))
        return "\n".join(out)


class SlackStandIn:
    def __init__(self):
        self.posts: list[Post] = []
        self.attempts: dict[str, int] = defaultdict(int)
        #: path -> list of (status, body, headers) to answer before accepting (one per attempt).
        self.script: dict[str, list[tuple[int, str, dict]]] = defaultdict(list)
        #: path -> (status, body) answered to every post: a webhook that is gone.
        self.gone: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()
        self._hold_after: int | None = None
        self.holding = threading.Event()
        self._released = threading.Event()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802 - http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, text, headers = standin._answer(self.path, json.loads(body or b"{}"))
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def webhook(self, name: str) -> str:
        return f"{self.url}/services/T0/B{name}/secret{name}XYZ1"

    def _answer(self, path: str, payload: dict) -> tuple[int, str, dict]:
        with self._lock:
            self.attempts[path] += 1
            if path in self.gone:
                status, body = self.gone[path]
                return status, body, {}
            if self.script[path]:
                return self.script[path].pop(0)
            hold = self._hold_after is not None and len(self.posts) >= self._hold_after
        if hold:
            self.holding.set()
            while not self._released.is_set():
                time.sleep(0.02)
            return 503, "held by the test", {}
        with self._lock:
            self.posts.append(Post(path, payload))
        return 200, "ok", {}

    def rate_limit_next(self, url: str, *, retry_after: int = 1) -> None:
        self.script[self._path(url)].append((429, "rate_limited", {"Retry-After": str(retry_after)}))

    def fail_next(self, url: str, *, status: int = 503, times: int = 1) -> None:
        self.script[self._path(url)] += [(status, "service_unavailable", {})] * times

    def revoke(self, url: str, *, status: int = 404, body: str = "no_service") -> None:
        self.gone[self._path(url)] = (status, body)

    def hold_after(self, count: int) -> None:
        self._hold_after = count
        self.holding.clear()
        self._released.clear()

    def release(self) -> None:
        self._hold_after = None
        self._released.set()

    def _path(self, url: str) -> str:
        return url[len(self.url) :]

    def to(self, url: str) -> list[Post]:
        return [post for post in self.posts if post.path == self._path(url)]

    def wait_for(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.posts) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"only {len(self.posts)} of {count} Slack posts arrived in {timeout:.0f} s")
            time.sleep(0.05)

    def start(self) -> "SlackStandIn":
        serve_in_thread(self.server)
        return self

    def stop(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()
