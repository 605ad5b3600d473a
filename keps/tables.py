"""Tables of the KEP pages. Columns that need no care come from the model; count columns link to the
filtered KEP list."""

from urllib.parse import urlencode

import django_tables2 as tables
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from core.tables import BaseTable
from core.templatetags.sigtracker_tags import STAGE_BADGE_CLASS

from .models import DesignGroup, FeatureGate, Kep
from .selectors import DESIGN_GROUP_SPLIT_AT

PLAN_SLIPS_HELP = "Planned slips: the milestone for its stage moved to a later release in kep.yaml on master"
TRACKED_SLIPS_HELP = "Tracked slips: releases whose enhancements board removed or deferred it"

#: What an empty cell shows (django-tables2's default for a value in `empty_values`, written out where a `render_`
#: method decides emptiness itself).
EMPTY = "—"


def kep_list_url(**params) -> str:
    """`/keps/?…` filtered by the given parameters (empty ones dropped)."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return reverse("keps:kep_list") + (f"?{query}" if query else "")


def _kep_href(record, table) -> str:
    """linkify: the page of the row's KEP (the record, or its `.kep`), as `Kep.get_absolute_url()` gives it."""
    return f"{table.reverse_once('keps:kep_list')}{getattr(record, 'kep', record).number}/"


def _owning_sig_href(record, table) -> str:
    """linkify: the KEP list filtered by the owning SIG of the row's KEP."""
    query = urlencode({"owning_sig": getattr(record, "kep", record).owning_sig.slug})
    return f"{table.reverse_once('keps:kep_list')}?{query}"


def _links(objects, url=lambda o: o.get_absolute_url(), text=str):
    return format_html_join(", ", '<a href="{}">{}</a>', ((url(o), text(o)) for o in objects))


def _joined(html, empty=EMPTY):
    """A rendered list (`format_html_join`), or the empty-cell dash when it holds nothing."""
    return html or empty


def stage_badge(stage: str, label: str):
    """A KEP stage (or board target stage) as a coloured badge: graduated good, on the way a warning."""
    return format_html('<span class="badge {}">{}</span>', STAGE_BADGE_CLASS.get(stage, ""), label)


def kep_links(keps, keps_url: str):
    """'2 · KEP-1, KEP-2': how many KEPs and a link to each (`keps_url` + number, as `Kep.get_absolute_url()`), or
    the empty-cell dash."""
    if not keps:
        return EMPTY
    links = format_html_join(", ", '<a href="{}{}/">KEP-{}</a>', ((keps_url, kep.number, kep.number) for kep in keps))
    return format_html("{} · {}", len(keps), links)


def stage_cell(reached: str | None, planned: str):
    """A feature gate's stage: the release it shipped in on a tracking board (and the plan, if different), or the
    release kep.yaml plans."""
    if reached:
        html = format_html('<strong title="shipped in {} on a tracking board">{}</strong>', reached, reached)
        if planned and planned != reached:
            html = format_html('{} <span class="muted">(planned {})</span>', html, planned)
        return html
    if planned:
        return format_html('<span class="muted" title="kep.yaml plans it; not shipped yet">planned {}</span>', planned)
    return EMPTY


class KepTable(BaseTable):
    number = tables.Column(linkify=_kep_href, verbose_name="KEP")
    title = tables.Column(linkify=_kep_href)
    owning_sig = tables.Column(verbose_name="Owning SIG", linkify=_owning_sig_href)
    stage = tables.Column()
    latest_milestone = tables.Column(verbose_name="Latest milestone", order_by=("latest_major", "latest_minor"))
    design_groups = tables.ManyToManyColumn(linkify_item=True, verbose_name="Design groups")

    class Meta(BaseTable.Meta):
        model = Kep
        fields = ("number", "title", "owning_sig", "stage", "status", "latest_milestone", "design_groups")
        empty_text = "No KEPs match these filters. Clear a filter, or import kep.yaml files to fill the list."

    def render_stage(self, record, value):
        return stage_badge(record.stage, value)

    def render_design_groups(self, value):
        return _joined(_links(value.all()))

    def value_stage(self, record):
        return record.stage

    def value_design_groups(self, record):
        return "; ".join(group.name for group in record.design_groups.all())


class FeatureGateTable(BaseTable):
    name = tables.Column(verbose_name="Feature gate")
    kep = tables.Column(linkify=_kep_href, verbose_name="KEP", order_by=("kep__number",))
    owning_sig = tables.Column(accessor="kep__owning_sig", verbose_name="Owning SIG", linkify=_owning_sig_href)
    components = tables.Column(orderable=False)
    stage = tables.Column(accessor="kep__stage", verbose_name="Stage")
    # Each stage: the release it was reached in (shipped on a tracking board) and the one kep.yaml plans.
    alpha = tables.Column(accessor="alpha_reached", verbose_name="Alpha", order_by=("alpha_reached",), empty_values=())
    beta = tables.Column(accessor="beta_reached", verbose_name="Beta", order_by=("beta_reached",), empty_values=())
    stable = tables.Column(
        accessor="stable_reached", verbose_name="Stable", order_by=("stable_reached",), empty_values=()
    )

    class Meta(BaseTable.Meta):
        model = FeatureGate
        fields = ("name", "kep", "owning_sig", "components", "stage", "alpha", "beta", "stable")
        empty_text = "No feature gates match. Gates come from the `feature-gates` list of each kep.yaml."

    def render_name(self, value):
        return format_html("<code>{}</code>", value)

    def render_kep(self, value):
        return f"KEP-{value.number}"

    def render_components(self, value):
        return ", ".join(value) or EMPTY

    def render_stage(self, record, value):
        return stage_badge(record.kep.stage, value)

    def render_alpha(self, record):
        return stage_cell(record.alpha_reached, record.kep.alpha_milestone)

    def render_beta(self, record):
        return stage_cell(record.beta_reached, record.kep.beta_milestone)

    def render_stable(self, record):
        return stage_cell(record.stable_reached, record.kep.stable_milestone)

    def value_name(self, value):
        return value

    def value_kep(self, value):
        return value.number

    def value_stage(self, record):
        return record.kep.stage

    def value_components(self, value):
        return "; ".join(value or [])

    @staticmethod
    def _stage_text(record, stage: str) -> str:
        reached = getattr(record, f"{stage}_reached", None)
        planned = getattr(record.kep, f"{stage}_milestone", "")
        if reached:
            return f"reached {reached}" + (f" (planned {planned})" if planned and planned != reached else "")
        return f"planned {planned}" if planned else ""

    def value_alpha(self, record):
        return self._stage_text(record, "alpha")

    def value_beta(self, record):
        return self._stage_text(record, "beta")

    def value_stable(self, record):
        return self._stage_text(record, "stable")


class PermaBetaTable(BaseTable):
    number = tables.Column(accessor="kep__number", verbose_name="KEP", linkify=_kep_href)
    title = tables.Column(accessor="kep__title", verbose_name="Title", linkify=_kep_href)
    owning_sig = tables.Column(accessor="kep__owning_sig__slug", verbose_name="Owning SIG", linkify=_owning_sig_href)
    authors = tables.Column(accessor="kep__number", verbose_name="Authors", orderable=False)
    stage = tables.Column()
    since = tables.Column(verbose_name="In stage since", order_by=("releases",))
    releases = tables.Column(verbose_name="Releases in stage")
    feature_gates = tables.Column(verbose_name="Feature gates", orderable=False)
    last_mention = tables.Column(
        accessor="kep__last_mention_date", verbose_name="Latest meeting mention", orderable=False
    )
    slips = tables.Column(
        verbose_name="Slips (planned)",
        attrs={"th": {"class": "num", "title": PLAN_SLIPS_HELP}, "td": {"class": "num"}},
    )

    class Meta(BaseTable.Meta):
        empty_text = "No KEP has sat in this stage that long. Lower N, or check that releases and KEPs are imported."
        order_by = ("-releases",)

    def render_authors(self, record):
        # kep_list_url(author=…) with the list's address worked out once per table, not once per author.
        base = self.reverse_once("keps:kep_list")
        return _joined(
            _links(
                record.kep.authors.all(),
                url=lambda p: f"{base}?{urlencode({'author': p.github})}" if p.github else base,
                text=lambda p: f"@{p.github}",
            )
        )

    def render_stage(self, value):
        return stage_badge(value, value)

    def render_since(self, record, value):
        if record.since_source == "kep.yaml":
            return value
        return format_html('{} <span class="muted">(from the tracking board)</span>', value)

    def render_feature_gates(self, value):
        return _joined(format_html_join(", ", "<code>{}</code>", ((gate.name,) for gate in value)))

    def render_last_mention(self, record, value):
        return format_html(
            '<a href="{}">{} ({})</a>', record.last_mention_url, value.isoformat(), record.kep.last_mention_sig
        )

    def value_authors(self, record):
        return "; ".join(p.github for p in record.kep.authors.all())

    def value_stage(self, value):
        return value

    def value_since(self, value):
        return value

    def value_feature_gates(self, value):
        return "; ".join(gate.name for gate in value)

    def value_last_mention(self, value):
        return value.isoformat() if value else ""


class ApproverTable(BaseTable):
    """Review load in one release. Stage cells list the KEPs; the total links to the filtered KEP list."""

    person = tables.Column(accessor="person__github", verbose_name="Approver")
    role = tables.Column(accessor="role_label", verbose_name="Role")
    alpha = tables.Column(accessor="person", verbose_name="Alpha", orderable=False, empty_values=())
    beta = tables.Column(accessor="person", verbose_name="Beta", orderable=False, empty_values=())
    stable = tables.Column(accessor="person", verbose_name="Stable", orderable=False, empty_values=())
    other = tables.Column(accessor="person", verbose_name="Deprecation / removal", orderable=False, empty_values=())
    total = tables.Column(verbose_name="KEPs held")

    class Meta(BaseTable.Meta):
        empty_text = (
            "Nobody holds a KEP in this release yet: track KEPs in it and import their kep.yaml approvers "
            "and PRR approval files."
        )
        order_by = ("-total",)

    def __init__(self, *args, release_version: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.release_version = release_version

    def render_person(self, record):
        person = record.person
        if person.name:
            return format_html('@{} <span class="muted">({})</span>', person.github, person.name)
        return f"@{person.github}"

    def render_alpha(self, record):
        return kep_links(record.alpha, self.reverse_once("keps:kep_list"))

    def render_beta(self, record):
        return kep_links(record.beta, self.reverse_once("keps:kep_list"))

    def render_stable(self, record):
        return kep_links(record.stable, self.reverse_once("keps:kep_list"))

    def render_other(self, record):
        return kep_links(record.other, self.reverse_once("keps:kep_list"))

    def render_total(self, record, value):
        role = "approver" if record.role == "approver" else "prr_approver"
        url = kep_list_url(**{role: record.person.github, "release": self.release_version})
        return format_html('<a href="{}">{}</a>', url, value)

    def value_person(self, record):
        return record.person.github

    def value_alpha(self, record):
        return len(record.alpha)

    def value_beta(self, record):
        return len(record.beta)

    def value_stable(self, record):
        return len(record.stable)

    def value_other(self, record):
        return len(record.other)

    def value_total(self, value):
        return value


class DesignGroupTable(BaseTable):
    name = tables.Column(linkify=True)
    sigs = tables.ManyToManyColumn(
        verbose_name="SIGs", linkify_item=lambda record: kep_list_url(participating_sig=record.slug)
    )
    kep_count = tables.Column(verbose_name="KEPs")
    active_count = tables.Column(verbose_name="Active KEPs")
    coverage_status = tables.Column(verbose_name="Coverage")

    class Meta(BaseTable.Meta):
        model = DesignGroup
        fields = ("name", "sigs", "kep_count", "active_count", "coverage_status")
        empty_text = "No design groups yet. Curators create them in the admin and add KEPs to them."

    def render_kep_count(self, record, value):
        return format_html('<a href="{}">{}</a>', kep_list_url(design_group=record.slug), value)

    def value_kep_count(self, value):
        return value

    def render_active_count(self, value):
        if value > DESIGN_GROUP_SPLIT_AT:
            return format_html('{} <span class="badge bad">over {} — split it</span>', value, DESIGN_GROUP_SPLIT_AT)
        return value

    def value_active_count(self, value):
        return value

    def value_sigs(self, record):
        return "; ".join(sig.slug for sig in record.sigs.all())


class SlipTable(BaseTable):
    """KEPs ranked by planned slips (git), with tracked slips (board) beside them."""

    number = tables.Column(linkify=_kep_href, verbose_name="KEP")
    title = tables.Column(linkify=_kep_href)
    owning_sig = tables.Column(verbose_name="Owning SIG", accessor="owning_sig__slug", linkify=_owning_sig_href)
    stage = tables.Column()
    plan_slips = tables.Column(
        verbose_name="Slips (planned)",
        attrs={"th": {"class": "num", "title": PLAN_SLIPS_HELP}, "td": {"class": "num"}},
    )
    tracked_slips = tables.Column(
        verbose_name="Slips (tracked)",
        attrs={"th": {"class": "num", "title": TRACKED_SLIPS_HELP}, "td": {"class": "num"}},
    )

    class Meta(BaseTable.Meta):
        model = Kep
        fields = ("number", "title", "owning_sig", "stage", "plan_slips", "tracked_slips")
        empty_text = "No slips recorded. Run `manage.py import_keps --history PATH` on a kubernetes/enhancements clone."
        order_by = ("-plan_slips", "-tracked_slips", "number")
