"""A local stand-in for GitHub's OAuth web flow and the API calls a sign-in makes, over real HTTP.

Shapes from GitHub's docs ("Authorizing OAuth apps", "Get the authenticated user", "List email addresses for the
authenticated user", "Get an organization membership for the authenticated user"), at GitHub Enterprise's paths
(web at /, API under /api/v3), which is what allauth's GITHUB_URL setting selects:

- GET  /login/oauth/authorize?client_id&redirect_uri&scope&state -> a consent page whose button redirects to
  redirect_uri?code=…&state=… (the user "signed in at GitHub" is `standin.signed_in`)
- POST /login/oauth/access_token (client_id, client_secret, code, redirect_uri) -> access_token JSON (Accept: json)
  or form-encoded; a wrong secret or a reused code -> {"error": "bad_verification_code"} with 200, as GitHub does
- GET  /api/v3/user, /api/v3/user/emails, /api/v3/user/memberships/orgs/<org> with `Authorization: token …`
"""

import json
import secrets
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

from tests.core.servers import serve_in_thread


class StandInOAuth:
    def __init__(self, *, client_id="sigtracker-test", client_secret="test-secret"):
        self.client_id, self.client_secret = client_id, client_secret
        #: GitHub users by login: {"id", "login", "name", "emails": [...], "orgs": [...]}
        self.users: dict[str, dict] = {}
        self.signed_in: str | None = None
        self.codes: dict[str, str] = {}
        self.tokens: dict[str, str] = {}
        self.requests: list[tuple[str, str]] = []
        self._server = None

    def add_user(self, login, *, uid, name="", emails=(), orgs=()):
        self.users[login] = {"id": uid, "login": login, "name": name, "emails": list(emails), "orgs": list(orgs)}
        return self.users[login]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self):
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, body, content_type="application/json", headers=()):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _json(self, status, payload):
                self._send(status, json.dumps(payload))

            def _user(self):
                auth = self.headers.get("Authorization", "")
                token = auth.split(" ", 1)[1] if " " in auth else ""
                login = standin.tokens.get(token)
                return standin.users.get(login) if login else None

            def do_GET(self):
                url = urlparse(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                standin.requests.append(("GET", url.path))
                if url.path == "/login/oauth/authorize":
                    if query.get("client_id") != standin.client_id:
                        return self._send(404, "unknown client", "text/plain")
                    code = secrets.token_hex(10)
                    standin.codes[code] = standin.signed_in
                    back = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query.get("state", "")})
                    page = (
                        f"<html><body><h1>Authorize sigtracker</h1><p>Signed in as {standin.signed_in}; scopes "
                        f"{query.get('scope', '')}</p><a id='authorize' href='{back}'>Authorize</a></body></html>"
                    )
                    return self._send(200, page, "text/html")
                user = self._user()
                if user is None:
                    return self._json(401, {"message": "Requires authentication"})
                if url.path == "/api/v3/user":
                    return self._json(
                        200,
                        {
                            "login": user["login"],
                            "id": user["id"],
                            "node_id": f"U_{user['id']}",
                            "avatar_url": f"https://avatars.example/{user['id']}",
                            "html_url": f"https://github.example/{user['login']}",
                            "type": "User",
                            "site_admin": False,
                            "name": user["name"] or None,
                            "email": None,
                        },
                    )
                if url.path == "/api/v3/user/emails":
                    return self._json(200, user["emails"])
                if url.path.startswith("/api/v3/user/memberships/orgs/"):
                    org = url.path.rsplit("/", 1)[1]
                    if org not in user["orgs"]:
                        return self._json(404, {"message": "Not Found"})
                    return self._json(200, {"state": "active", "role": "member", "organization": {"login": org}})
                return self._json(404, {"message": "Not Found"})

            def do_POST(self):
                url = urlparse(self.path)
                standin.requests.append(("POST", url.path))
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                if url.path != "/login/oauth/access_token":
                    return self._json(404, {"message": "Not Found"})
                login = standin.codes.pop(form.get("code", ""), None)
                ok = form.get("client_id") == standin.client_id and form.get("client_secret") == standin.client_secret
                if not ok or login is None:
                    payload = {"error": "bad_verification_code", "error_description": "The code passed is incorrect"}
                else:
                    token = "gho_" + secrets.token_hex(16)
                    standin.tokens[token] = login
                    payload = {"access_token": token, "token_type": "bearer", "scope": "read:user,user:email"}
                if "json" in self.headers.get("Accept", ""):
                    return self._json(200, payload)
                return self._send(200, urlencode(payload), "application/x-www-form-urlencoded")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        serve_in_thread(self._server)
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
