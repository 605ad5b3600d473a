"""Tables of the release pages. Only columns that need care are declared; the rest come from Meta.fields."""

import datetime

import django_tables2 as tables
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.timezone import template_localtime

from core.tables import BaseTable

from .choices import EnhancementStatus, ExceptionDecision, Freeze, PrrStatus, StatsSource
from .models import BOARD_ORDER, KEPLESS_NOTE, Release, TrackedEnhancement
from .prr import docs_recorded, prr_approver_of, prr_is_todays, prr_of
from .rules import outcome_not_recorded, release_state_label, scope_label, sources_label

SLIPS_HELP = "Times removed from or deferred in a milestone, up to and including this release"


def day(value: datetime.date | datetime.datetime) -> str:
    """A date, or the UTC date of an instant, as "4 Feb 2022"."""
    if isinstance(value, datetime.datetime):
        value = value.astimezone(datetime.UTC).date()
    return f"{value.day} {value:%b %Y}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f} %"


def _state_label(record) -> str:
    """`rules.release_state_label` of a `selectors.release_list` row."""
    has_dates = bool(record.cycle_start or record.release_on or getattr(record, "has_known_dates", False))
    return release_state_label(state=record.state, release_day=record.release_on, has_dates=has_dates)


def _enhancement_list_url(record, query: str = "") -> str | None:
    if record.stats_source == StatsSource.RECORDED_TALLY:
        return None
    return reverse("releases:enhancement_list", kwargs={"version": record.version}) + query


class ReleaseTable(BaseTable):
    version = tables.Column(linkify=True, verbose_name="Version")
    # Plain columns with a render_ method: DateColumn/DateTimeColumn compile a template for every cell.
    enhancements_freeze_at = tables.Column(verbose_name="Enhancements freeze")
    code_freeze_at = tables.Column(verbose_name="Code freeze")
    release_on = tables.Column(verbose_name="Release date")
    # A release with only a retro tally kept no list of KEPs: its counts link nowhere rather than to an empty list.
    tracked = tables.Column(
        verbose_name="Tracked",
        linkify=lambda record: _enhancement_list_url(record),
        attrs={"td": {"class": "num"}},
        empty_values=(),
    )
    done = tables.Column(
        verbose_name="Done",
        linkify=lambda record: _enhancement_list_url(record, "?status=done"),
        attrs={"td": {"class": "num"}},
        empty_values=(),
    )
    merge_rate = tables.Column(verbose_name="Merge rate", attrs={"td": {"class": "num"}}, empty_values=())
    # Each SIG's retro tally with its scope ("sig-node 23 / 6"), from `selectors.release_list`'s `sig_tallies`.
    recorded = tables.Column(
        verbose_name="Retro tally",
        accessor="recorded_tracked",
        orderable=False,
        attrs={"td": {"class": "num"}},
        empty_values=(),
    )

    # In the CSV only (the page badges the cell): where tracked and done come from, or that they are progress.
    figures_from = tables.Column(verbose_name="Figures from", accessor="tracked_source", visible=False, orderable=False)
    # In the CSV only (the page notes it in the Done cell): listed enhancements of a release over never marked done,
    # deferred or removed, so that Done is a floor.
    outcome_not_recorded = tables.Column(
        verbose_name="Outcome not recorded", accessor="stats_status_counts", visible=False, orderable=False
    )

    class Meta(BaseTable.Meta):
        model = Release
        fields = ("version", "name", "enhancements_freeze_at", "code_freeze_at", "release_on", "state")
        sequence = (*fields, "tracked", "done", "merge_rate", "recorded", "figures_from", "outcome_not_recorded")
        empty_text = "No releases yet — add one in the admin or import a sig-release schedule."

    def render_enhancements_freeze_at(self, value):
        return day(value)

    def render_code_freeze_at(self, value):
        return day(value)

    def render_release_on(self, value):
        return day(value)

    def render_version(self, record):
        return f"v{record.version}"

    def render_state(self, record):
        return _state_label(record)

    def value_state(self, record):
        return _state_label(record)

    def value_version(self, record):
        return record.version

    def render_tracked(self, record, value):
        if _sigs_only(record):
            return _recorded_for(record)
        if value is None:
            return "—"
        if StatsSource.RECORDED_TALLY in (record.stats_source, getattr(record, "tracked_source", None)):
            return format_html('{} <span class="badge" title="Recorded in the retro notes">tally</span>', value)
        if getattr(record, "in_cycle", False):
            return format_html(
                '{} <span class="badge" title="Tracked so far: the release is in its cycle">so far</span>', value
            )
        return value

    def value_tracked(self, value):
        return "" if value is None else value

    def render_done(self, record, value):
        if _sigs_only(record):
            return _recorded_for(record)
        if value is None:
            return "—"
        unknown = _outcomes_unknown(record)
        if unknown:
            return format_html(
                '{} <span class="badge" title="{} more never marked done, deferred or removed">+{} unknown</span>',
                value,
                unknown,
                unknown,
            )
        return value

    def value_done(self, value):
        return "" if value is None else value

    def value_outcome_not_recorded(self, record):
        return _outcomes_unknown(record) if record.done is not None else ""

    def render_merge_rate(self, record, value):
        if _sigs_only(record):
            return _recorded_for(record)
        return percent(value)

    def render_recorded(self, record, value):
        tallies = _tallies(record)
        if not tallies:
            return "—"
        return format_html_join(
            mark_safe("<br>"),  # noqa: S308 - a literal
            '<span title="tracked / merged as {} recorded it at its retro">{} {} / {}</span>',
            ((slug, slug, tracked, done) for slug, tracked, done in tallies),
        )

    def value_recorded(self, record, value):
        return "; ".join(f"{slug} {tracked}/{done}" for slug, tracked, done in _tallies(record))

    def value_figures_from(self, record, value):
        """`rules.sources_label` of the release-wide figures, and what they may claim."""
        if getattr(record, "release_wide_known", None) is None or (record.done is None and not _sigs_only(record)):
            return ""
        words = [sources_label(record.figures_from or ()) or "nothing recorded"]
        if _sigs_only(record):
            words.append(scope_label(sig=None, sigs_recorded=record.sigs_recorded, known=False))
        elif getattr(record, "in_cycle", False):
            words.append("so far (in cycle)")
        elif record.tracked is None:
            undated = getattr(record, "freezes_undated", None)
            words.append("no freeze dated" if undated else "standing at freeze not recorded")
        return "; ".join(words)

    def value_merge_rate(self, value):
        return "" if value is None else round(value, 4)


def _sigs_only(record) -> bool:
    """Whether the release's figures are recorded for some SIGs only (`rules.figures`): no release-wide figure."""
    return getattr(record, "release_wide_known", None) is False


def _recorded_for(record) -> str:
    return format_html(
        '— <span class="muted" title="only some SIGs\' figures are recorded: see the release\'s page">{}</span>',
        scope_label(sig=None, sigs_recorded=record.sigs_recorded, known=False),
    )


def _tallies(record) -> list[tuple[str, int, int]]:
    """Each SIG's retro tally of a `selectors.release_list` row: (SIG, tracked, merged)."""
    return [(row.sig.slug, row.recorded_tracked, row.recorded_done) for row in getattr(record, "sig_tallies", ())]


def _outcomes_unknown(record) -> int:
    """`rules.outcome_not_recorded` of a row of `selectors.release_list`."""
    return outcome_not_recorded(
        status_counts=getattr(record, "stats_status_counts", None) or {},
        in_cycle=bool(getattr(record, "in_cycle", False)),
        from_tally=StatsSource.RECORDED_TALLY in (record.stats_source, getattr(record, "tracked_source", None)),
    )


def _kep_url(record, table) -> str | None:
    """linkify: the KEP's page, as `Kep.get_absolute_url()` gives it, without a URL resolution per row; no link
    for a KEP-less feature (it has no page of its own)."""
    if record.kep_id is None:
        return None
    return f"{table.reverse_once('keps:kep_list')}{record.kep.number}/"


#: Badge colour of a board status: shipped good, out of the release bad, at risk or waiting on an exception a warning.
STATUS_BADGE_CLASS = {
    EnhancementStatus.DONE: " ok",
    EnhancementStatus.REMOVED: " bad",
    EnhancementStatus.DEFERRED: " bad",
    EnhancementStatus.EXCEPTION_PENDING: " warn",
}
#: Badge colour of an exception request's decision (pending is a warning).
DECISION_BADGE_CLASS = {ExceptionDecision.APPROVED: " ok", ExceptionDecision.REJECTED: " bad"}


class TrackedEnhancementTable(BaseTable):
    """Columns, sorting, cells and CSV values of tracked enhancements: `render_` methods give the HTML cells,
    `value_` methods the CSV cells."""

    kep = tables.Column(
        accessor="kep__number",
        verbose_name="KEP",
        # As the list selector orders rows (KEP-less features after the KEPs, by name), so the table knows
        # it starts sorted by this column.
        order_by=BOARD_ORDER,
        linkify=_kep_url,
        attrs={"td": {"class": "nowrap"}},
    )
    # A KEP-less feature (an early feature sheet's row naming no KEP) shows its name instead.
    title = tables.Column(
        accessor="kep__title",
        verbose_name="Title",
        order_by=("kep__title", "feature_name"),
        linkify=_kep_url,
        empty_values=(),
    )
    sig = tables.Column(
        accessor="sig__slug", verbose_name="SIG", order_by=("sig__slug",), attrs={"td": {"class": "nowrap"}}
    )
    target_stage = tables.Column(verbose_name="Stage")
    status = tables.Column(verbose_name="Status")
    prr_status = tables.Column(verbose_name="PRR", empty_values=())
    exception = tables.Column(
        accessor="exception_decision", verbose_name="Exception", order_by=("exception_decision", "exception_deadline")
    )
    docs_status = tables.Column(verbose_name="Docs", empty_values=())
    feature_blog = tables.Column(verbose_name="Blog")
    enhancements_contact = tables.Column(
        accessor="enhancements_contact__github", verbose_name="Contact", order_by=("enhancements_contact__github",)
    )
    slips = tables.Column(
        verbose_name="Slips",
        attrs={"th": {"class": "num", "title": SLIPS_HELP}, "td": {"class": "num"}},
    )
    # Where the row came from: early releases' rows come from their feature sheet or exception file, not a sync.
    source = tables.Column(verbose_name="Source")

    class Meta(BaseTable.Meta):
        model = TrackedEnhancement
        fields = (
            "kep",
            "title",
            "sig",
            "type",
            "target_stage",
            "status",
            "prr_status",
            "exception",
            "docs_status",
            "feature_blog",
            "enhancements_contact",
            "slips",
            "source",
        )
        empty_text = "No tracked enhancement matches these filters."

    def __init__(self, *args, release_over: bool = False, **kwargs):
        # A past release's rows: what today's files say of them is labelled today's (`prr.prr_is_todays`).
        self.release_over = release_over
        super().__init__(*args, **kwargs)

    def render_kep(self, value):
        return f"KEP-{value}"

    def render_title(self, record):
        if record.kep_id is None:
            return format_html('{} <span class="muted">{}</span>', record.feature_name, KEPLESS_NOTE)
        return record.kep.title

    def value_title(self, record):
        return record.title

    def render_status(self, record, value):
        status = record.status
        badge = STATUS_BADGE_CLASS.get(status, " warn" if record.is_at_risk else "")
        return format_html('<span class="badge{}">{}</span>', badge, value)

    def render_prr_status(self, record, value):
        # The PRR rule: the board's status, else the KEP's prod-readiness file (rows from `tracked_enhancement_list`).
        label, approver = PrrStatus(prr_of(record)).label, prr_approver_of(record)
        if prr_is_todays(record, release_over=self.release_over):
            # A past release: the file is today's, not what it said then (its history is not kept).
            return format_html(
                'not recorded <span class="muted" title="today\'s prod-readiness file, not as of this release">'
                "(today's: {} @{})</span>",
                label,
                approver,
            )
        if approver:
            return format_html('{} <span class="muted">@{}</span>', label, approver)
        return label

    def render_exception(self, record):
        freeze, decision, deadline = record.exception_freeze, record.exception_decision, record.exception_deadline
        html = format_html(
            '<span class="badge{}" title="{} freeze">{}: {}</span>',
            DECISION_BADGE_CLASS.get(decision, " warn"),
            freeze,
            capfirst(freeze),
            decision,
        )
        if deadline and decision != ExceptionDecision.REJECTED:
            by = date_format(template_localtime(deadline), "j M")
            html = format_html('{} <span class="nowrap muted">by {}</span>', html, by)
        return html

    def render_docs_status(self, record, value):
        links = record.docs_pr_link_list
        if not docs_recorded(record):
            return format_html('<span class="muted" title="nothing about docs is recorded for this row">{}</span>',
                               "not recorded")  # fmt: skip
        if not links:
            return value
        texts = [value, *(f"PR {number}" for number in range(2, len(links) + 1))]
        return format_html_join(", ", '<a href="{}" rel="noopener">{}</a>', zip(links, texts, strict=True))

    def render_feature_blog(self, record, value):
        if not value:
            return "—"
        if record.feature_blog_pr_url[:4] == "http":
            return format_html('<a href="{}" rel="noopener">yes</a>', record.feature_blog_pr_url)
        return "yes"

    def render_enhancements_contact(self, value):
        return f"@{value}"

    def value_kep(self, value):
        return "" if value is None else value

    def value_status(self, record):
        return record.get_status_display()

    def value_enhancements_contact(self, value):
        return f"@{value}"

    def value_prr_status(self, record):
        label, approver = PrrStatus(prr_of(record)).label, prr_approver_of(record)
        if prr_is_todays(record, release_over=self.release_over):
            return f"not recorded (today's: {label} @{approver})"
        return label + (f" @{approver}" if approver else "")

    def value_exception(self, record):
        return exception_summary(record)

    def value_docs_status(self, record):
        if not docs_recorded(record):
            return "not recorded"
        return " ".join([record.get_docs_status_display(), *record.docs_pr_link_list])

    def value_feature_blog(self, record):
        return "yes" if record.feature_blog else "no"


def exception_summary(record) -> str:
    """The latest exception request of a row annotated by `tracked_enhancement_list` ("Code freeze: pending,
    deadline 2022-03-31"), or ""."""
    freeze = getattr(record, "exception_freeze", None)
    if not freeze:
        return ""
    text = f"{Freeze(freeze).label}: {ExceptionDecision(record.exception_decision).label.lower()}"
    if record.exception_deadline and record.exception_decision != ExceptionDecision.REJECTED:
        text += f", deadline {record.exception_deadline.astimezone(datetime.UTC):%Y-%m-%d %H:%M} UTC"
    return text
