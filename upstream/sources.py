"""The upstream repositories sigtracker keeps itself current from, as settings name them, and what a URL may be.

A URL is handed to git, which treats some strings as programs to run (`ext::sh -c ...`), options
(`--upload-pack=...`) or local paths. Only three shapes are accepted: `https://host/...`, `ssh://[user@]host/...`
and scp-like `user@host:path`; `file://` only with SIGTRACKER_UPSTREAM_ALLOW_FILE (tests, air-gapped mirrors).
Anything else, anything starting with `-`, a host starting with `-` (ssh would take it for an option) and any
whitespace or control character are refused with a message naming the setting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings

__all__ = [
    "SOURCE_NAMES",
    "Source",
    "UrlRefused",
    "configured_sources",
    "public_url",
    "source_get",
    "url_check",
]

#: Source name -> the setting naming its URL, in the order they are refreshed: KEPs first (release directories and
#: meeting notes link to them), then the notes, then the release directories: a retro in the notes creates the
#: tracked rows (and KEPs) that a release's exception requests are linked to, and the exception import links a
#: request only to rows that exist when it reads the file. In the other order a first refresh left old releases'
#: requests unlinked until their file changed again (a --full run right after it still changed rows).
SOURCE_SETTINGS = {
    "enhancements": "SIGTRACKER_UPSTREAM_ENHANCEMENTS",
    "community": "SIGTRACKER_UPSTREAM_COMMUNITY",
    "sig-release": "SIGTRACKER_UPSTREAM_SIG_RELEASE",
}
SOURCE_NAMES = tuple(SOURCE_SETTINGS)

_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")
_SCP = re.compile(r"(?P<user>[A-Za-z0-9._-]+)@(?P<host>[^:/\s]+):(?P<path>[^\s]+)")


class UrlRefused(ValueError):
    """A source URL git must not be given; the message names the setting."""


@dataclass(frozen=True)
class Source:
    """One upstream repository: its name, URL, and the folder its clone lives in."""

    name: str
    url: str
    setting: str

    @property
    def checkout(self) -> Path:
        return Path(settings.SIGTRACKER_UPSTREAM_DIR) / self.name


def url_check(url: str, *, setting: str, allow_file: bool) -> str:
    """`url` when git may be pointed at it; else UrlRefused naming `setting` and what is wrong."""

    def refuse(why: str) -> UrlRefused:
        return UrlRefused(f"{setting}: {why}; give an https://, ssh:// or user@host:path URL")

    if url.startswith("-"):
        raise refuse(f"{url[:80]!r} starts with '-' (git would read it as an option)")
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in url):
        raise refuse("the URL holds whitespace or a control character")
    if len(url) > 2000:
        raise refuse("the URL is longer than 2000 characters")
    if "://" in url:
        scheme = url.split("://", 1)[0].lower()
        if scheme == "file":
            if not allow_file:
                raise UrlRefused(f"{setting}: file:// URLs are accepted only with SIGTRACKER_UPSTREAM_ALLOW_FILE=1")
            if not urlsplit(url).path.startswith("/"):
                raise refuse("a file:// URL needs an absolute path")
            return url
        if scheme not in ("https", "ssh"):
            raise refuse(f"the {scheme!r} scheme is not accepted")
        parts = urlsplit(url)
        if not parts.hostname or not _HOST.fullmatch(parts.netloc.rsplit("@", 1)[-1].rsplit(":", 1)[0] or "-"):
            raise refuse(f"{url[:80]!r} names no valid host")
        if parts.netloc.rsplit("@", 1)[-1].startswith("-"):
            raise refuse("the host starts with '-'")
        return url
    match = _SCP.fullmatch(url)
    if match and _HOST.fullmatch(match["host"]) and not match["path"].startswith("-"):
        return url
    raise refuse(f"{url[:80]!r} is not an accepted URL")


def public_url(url: str) -> str:
    """`url` without a password or token in it (https://user:token@host/... -> https://host/...), for the API,
    the admin and error messages."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]).geturl()


def configured_sources() -> list[Source]:
    """The sources whose setting is not empty (an empty one disables the source), in refresh order."""
    sources = []
    for name, setting in SOURCE_SETTINGS.items():
        url = (getattr(settings, setting, "") or "").strip()
        if url:
            sources.append(Source(name=name, url=url, setting=setting))
    return sources


def source_get(name: str) -> Source | None:
    return next((source for source in configured_sources() if source.name == name), None)
