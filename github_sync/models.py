"""What the GitHub sync keeps between runs: each API page's ETag and body (`GitHubCachedResponse`)."""

from django.db import models
from django.utils import timezone


class GitHubCachedResponse(models.Model):
    """One page of a GitHub API answer as last received: its ETag and the (trimmed) body.

    The sync sends the ETag as `If-None-Match`; GitHub's `304` (free of rate limit) then means this body still
    holds, so an unchanged re-sync costs only 304s and rebuilds every issue from here.
    """

    url = models.CharField(max_length=1000, unique=True)
    resource = models.CharField(max_length=300, db_index=True, help_text="The URL's path, shared by its pages.")
    etag = models.CharField(max_length=200)
    body = models.JSONField(default=list)
    next_url = models.CharField(max_length=1000, blank=True)
    fetched_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "releases_githubcachedresponse"  # made by releases' migrations; the model moved, the table stayed
        ordering = ["url"]
        verbose_name = "GitHub cached response"

    def __str__(self):
        return self.url
