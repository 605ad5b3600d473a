"""Atom feeds (Django's syndication framework) for people who follow a release, a SIG or a KEP in a feed reader.

- /feeds/releases/<version>/status.atom — status changes of the release's tracked enhancements
- /feeds/sigs/<slug>/status.atom — status changes of a SIG's tracked enhancements, in every release
- /feeds/keps/<number>/status.atom — status changes of one KEP, in every release
- /feeds/sigs/<slug>/meetings.atom — a SIG's meetings, newest first
- /feeds/action-items.atom — retro action items as they are opened and as they are closed (done or dropped)

Each entry links to the page that shows it and has a stable id, so a feed reader shows each change once. Feeds are
public pages like the others: in private mode they need a login like the others (feed readers cannot give one).
"""

import datetime

from django.contrib.syndication.views import Feed
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from community.models import Sig
from core.text import parse_kep_number
from keps.models import Kep
from meetings.models import Meeting
from releases.choices import EnhancementStatus
from releases.models import EnhancementStatusChange, Release
from retros.choices import ActionStatus, RetroCategory
from retros.models import RetroItem

#: Entries in a feed: feed readers poll often, so a window of the latest changes is enough.
FEED_LENGTH = 50
CLOSED_ACTION_STATUSES = (ActionStatus.DONE, ActionStatus.DROPPED)
_STATUS_LABELS = dict(EnhancementStatus.choices)


def _midnight_utc(day: datetime.date | None) -> datetime.datetime | None:
    if day is None:
        return None
    return datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)


class _AtomFeed(Feed):
    feed_type = Atom1Feed

    def item_guid_is_permalink(self, item):
        return False


class _StatusChangeFeed(_AtomFeed):
    """Status changes, newest first; subclasses narrow them down."""

    def changes(self):
        return EnhancementStatusChange.objects.select_related(
            "tracked_enhancement__release", "tracked_enhancement__kep", "tracked_enhancement__sig"
        ).order_by("-changed_at", "-pk")

    def item_title(self, item):
        te = item.tracked_enhancement
        before = _STATUS_LABELS.get(item.from_status, item.from_status) or "new"
        after = _STATUS_LABELS.get(item.to_status, item.to_status)
        return f"v{te.release.version} {te.display_name}: {before} → {after}"

    def item_description(self, item):
        te = item.tracked_enhancement
        parts = [f"{te.sig.slug}, release {te.release.version}."]
        if item.note:
            parts.append(item.note)
        if item.link:
            parts.append(f"See {item.link}")
        return " ".join(parts)

    def item_link(self, item):
        return item.tracked_enhancement.get_absolute_url()

    def item_guid(self, item):
        return f"sigtracker:status-change:{item.pk}"

    def item_pubdate(self, item):
        return item.changed_at

    def item_updateddate(self, item):
        return item.changed_at

    def item_author_name(self, item):
        return item.author or None


class ReleaseStatusFeed(_StatusChangeFeed):
    def get_object(self, request, version):
        return get_object_or_404(Release, version=version.removeprefix("v"))

    def title(self, obj):
        return f"sigtracker: status changes in Kubernetes v{obj.version}"

    def link(self, obj):
        return obj.get_absolute_url()

    def items(self, obj):
        return self.changes().filter(tracked_enhancement__release=obj)[:FEED_LENGTH]


class SigStatusFeed(_StatusChangeFeed):
    def get_object(self, request, slug):
        return get_object_or_404(Sig, slug=slug)

    def title(self, obj):
        return f"sigtracker: status changes of {obj.display_name}'s enhancements"

    def link(self, obj):
        return reverse("keps:kep_list") + f"?owning_sig={obj.slug}"

    def items(self, obj):
        return self.changes().filter(tracked_enhancement__sig=obj)[:FEED_LENGTH]


class KepStatusFeed(_StatusChangeFeed):
    def get_object(self, request, number):
        number = parse_kep_number(str(number))
        if number is None:
            raise Http404
        return get_object_or_404(Kep, number=number)

    def title(self, obj):
        return f"sigtracker: status changes of KEP-{obj.number} {obj.title}"

    def link(self, obj):
        return obj.get_absolute_url()

    def item_link(self, item):
        return item.tracked_enhancement.kep.get_absolute_url()

    def items(self, obj):
        return self.changes().filter(tracked_enhancement__kep=obj)[:FEED_LENGTH]


class SigMeetingsFeed(_AtomFeed):
    def get_object(self, request, slug):
        return get_object_or_404(Sig, slug=slug)

    def title(self, obj):
        return f"sigtracker: {obj.display_name} meetings"

    def link(self, obj):
        return reverse("meetings:meeting_list") + f"?sig={obj.slug}"

    def items(self, obj):
        return Meeting.objects.filter(sig=obj).select_related("sig").order_by("-date")[:FEED_LENGTH]

    def item_title(self, item):
        title = f"{item.sig.slug} meeting, {item.date:%Y-%m-%d}"
        if item.title:
            title += f": {item.title}"
        return title + (" (cancelled)" if item.cancelled else "")

    def item_description(self, item):
        return item.title or str(item)

    def item_guid(self, item):
        return f"sigtracker:meeting:{item.pk}"

    def item_pubdate(self, item):
        return _midnight_utc(item.date)

    def item_updateddate(self, item):
        return _midnight_utc(item.date)


class ActionItemFeed(_AtomFeed):
    """One entry when an action item is opened and another when it is closed (done or dropped). Action items keep
    no timestamps, so entries are dated by their retro (else its release day); the entry id carries the state, so a
    feed reader sees a closed item as a new entry."""

    title = "sigtracker: retro action items opened and closed"
    description = "Action items from release retrospectives, as they are opened and closed."

    def link(self):
        return reverse("releases:dashboard")

    def items(self):
        return list(
            # A hidden item (by a lead, with a reason) leaves the feed too.
            RetroItem.objects.filter(category=RetroCategory.ACTION_ITEM, hidden_at__isnull=True)
            .select_related("owner", "retrospective__release", "retrospective__sig")
            .order_by("-retrospective__release__major", "-retrospective__release__minor", "-pk")[:FEED_LENGTH]
        )

    def _closed(self, item) -> bool:
        return item.status in CLOSED_ACTION_STATUSES

    def item_title(self, item):
        retro = item.retrospective
        verb = f"Closed ({item.get_status_display().lower()})" if self._closed(item) else "Opened"
        return f"{verb}: {item.text[:120]} — {retro.sig.slug}, v{retro.release.version} retro"

    def item_description(self, item):
        owner = f" Owner: @{item.owner.github}." if item.owner else ""
        return f"{item.text}{owner}"

    def item_link(self, item):
        return item.retrospective.get_absolute_url()

    def item_guid(self, item):
        return f"sigtracker:action-item:{item.pk}:{'closed' if self._closed(item) else 'opened'}"

    def item_pubdate(self, item):
        retro = item.retrospective
        return _midnight_utc(retro.date or retro.release.release_date)

    def item_author_name(self, item):
        return f"@{item.owner.github}" if item.owner else None
