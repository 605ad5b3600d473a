"""Keeping sigtracker current by itself: the upstream repositories (kubernetes/enhancements, sig-release,
community) cloned into SIGTRACKER_UPSTREAM_DIR, fetched on a schedule, and the files changed since the last
imported commit handed to the importers of the apps below (docs/upstream.md).

- `sources`: which repositories, from settings, and the URL rule (what git may be pointed at).
- `repository`: clone, fetch, check out and diff through `core.gitcli` (docs/security-git.md).
- `plans`: changed paths -> the imports they concern (pure, no database).
- `services`: one refresh of one or all sources, its run on record, the cursor moved on success.
- `selectors`, `context_processors`, `health`, `metrics`: freshness on the API, every page, /healthz, /metrics.
"""
