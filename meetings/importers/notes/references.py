"""What an agenda item's text refers to: KEPs (`kep_refs`), GitHub issues and PRs (`item_links`) and Kubernetes
releases (`release_mentions`).

* KEP references (`kep_refs`): enhancements issues and PRs (also under the repository's pre-2018 name
  `kubernetes/features`, linked as enhancements), `keps/<sig>/<N>-name` links, "KEP-1287", "KEP 3063",
  "KEP #2008", "enhancements#N" (never "KEP 1.24"). Links (`item_links`): every GitHub issue and PR URL (any
  repository) in canonical form, plus KEP directory links.
* Releases (`release_mentions`): "1.25", "v1.26" in an item's title, except after another product's name ("Go
  1.19", "containerd 1.6", "runc 1.1"), which would otherwise invent Kubernetes releases.
"""

from __future__ import annotations

import re

from .records import MAX_INT, URL_MAX

_KEP_TEXT = re.compile(r"\bKEP[\s-]*#?\s?(\d{1,6})(?!\d|\.\d)", re.I)
# kubernetes/features is the enhancements repository's name until 2018 (same issue numbers, GitHub redirects).
_ENH_LINK = re.compile(
    r"(?:github\.com/kubernetes/(?:enhancements|features)/(?:issues|pull)|(?<![\w.])features\.k8s\.io)/(\d{1,9})(?!\d)",
    re.I,
)
_FEATURES = re.compile(r"^https?://features\.k8s\.io/(\d{1,9})(?!\d)", re.I)
_ENH_DIR = re.compile(
    r"https?://(?:www\.)?github\.com/kubernetes/enhancements/(?:tree|blob)/[^/\s)\]]+/keps/(?:[^/\s)\]]+/)?"
    r"(\d{1,6})-[\w.-]*[\w]",
    re.I,
)
_ENH_SHORT = re.compile(r"(?<![\w/])(?:kubernetes/enhancements|k/enhancements|enhancements)#(\d{1,9})(?!\d)", re.I)
_URL = re.compile(r"https?://[^\s<>\"'\]\)]+", re.I)
_GH_ITEM = re.compile(r"^https?://(?:www\.)?github\.com/([\w.-]+)/([\w.-]+)/(issues|pull)/(\d{1,9})(?!\d)", re.I)


def kep_refs(text: str) -> list[int]:
    """KEP numbers a text refers to, in order of first mention.

    GitHub numbers issues and PRs in one sequence, and a KEP's number is its tracking issue's, so an
    enhancements PR number can only match a KEP that took that number; the caller links existing KEPs only.
    """
    found: dict[int, None] = {}
    lower = text.lower()
    # Cheap substring checks first: most lines mention no KEP, and case-insensitive scans are slow.
    patterns = [
        pattern
        for pattern, words in (
            (_ENH_LINK, ("enhancements/", "features.k8s.io", "kubernetes/features/")),
            (_ENH_DIR, ("enhancements/",)),
            (_ENH_SHORT, ("enhancements#",)),
            (_KEP_TEXT, ("kep",)),
        )
        if any(word in lower for word in words)
    ]
    for pattern in patterns:
        for m in pattern.finditer(text):
            number = int(m.group(1))
            if 0 < number <= MAX_INT:
                found.setdefault(number, None)
    return list(found)


def item_links(text: str) -> list[str]:
    """GitHub issue/PR URLs (canonical: no fragment, query or trailing slash) and KEP directory links."""
    found: dict[str, None] = {}
    for url in _URL.findall(text):
        url = url.rstrip(".,;:!?*_")
        m = _GH_ITEM.match(url)
        if m:
            org, repo, kind, number = m.groups()
            if org.lower() == "kubernetes" and repo.lower() == "features":
                repo = "enhancements"  # renamed in 2018; the old address redirects
            found.setdefault(f"https://github.com/{org}/{repo}/{kind.lower()}/{int(number)}", None)
            continue
        m = _FEATURES.match(url)
        if m:  # features.k8s.io/N redirects to the enhancements issue
            found.setdefault(f"https://github.com/kubernetes/enhancements/issues/{int(m.group(1))}", None)
            continue
        m = _ENH_DIR.match(url)
        if m:
            found.setdefault(m.group(0), None)
    return [url for url in found if len(url) <= URL_MAX]


_VERSION = re.compile(r"(?<![\w.])v?1\.(\d{1,2})(?!\d|\.\d)")
#: Products whose "1.N" versions are not Kubernetes releases (the word right before the version).
_OTHER_PRODUCTS = {
    "go",
    "golang",
    "containerd",
    "runc",
    "crun",
    "cri-o",
    "crio",
    "docker",
    "moby",
    "cgroup",
    "cgroups",
    "python",
    "ubuntu",
    "debian",
    "rhel",
    "kernel",
    "linux",
    "etcd",
    "coredns",
    "cadvisor",
    "kata",
    "gvisor",
    "helm",
    "kind",
    "crictl",
    "cri-tools",
    "oci",
    "nri",
    "cdi",
    "protobuf",
    "grpc",
    "api",
    "spec",
    "version",
}


def release_mentions(text: str) -> list[str]:
    """Kubernetes releases a text names ("1.25", "v1.26"), as "1.N", in order of first mention."""
    found: dict[str, None] = {}
    for m in _VERSION.finditer(text):
        before = text[: m.start()].rstrip().rsplit(None, 1)
        word = before[-1].lower().strip("([{:,") if before else ""
        if word in _OTHER_PRODUCTS:
            continue
        found.setdefault(f"1.{int(m.group(1))}", None)
    return list(found)
