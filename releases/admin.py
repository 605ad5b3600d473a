from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import DELETION, LogEntry
from django.db import models, transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.http import HttpResponseRedirect, QueryDict
from django.urls import reverse
from django.utils.html import format_html

from community.admin_scope import PublicSigScopedAdminMixin, SigScopedAdminMixin, SigScopedInlineMixin
from community.choices import SigRole
from community.models import Person
from core.admin import GuardedActionsMixin

from .choices import ActionStatus, EnhancementStatus, ExceptionDecision, Freeze, PrrStatus, RetroCategory
from .models import (
    KEPLESS_NOTE,
    EnhancementException,
    EnhancementStatusChange,
    FeatureSheetRow,
    Milestone,
    Release,
    ReleaseStats,
    ReleaseTeamMember,
    RetroItem,
    Retrospective,
    TrackedEnhancement,
)
from .selectors import latest_exception_annotations, person_sig_ids, tracked_enhancement_checklist
from .services import (
    release_stats_compute,
    tracked_enhancement_bulk_set_status,
    tracked_enhancement_create,
    tracked_enhancement_set_status,
)
from .services.exceptions import exception_request_create


class MilestoneInline(SigScopedInlineMixin, admin.TabularInline):
    """On a release every lead edits: release-wide milestones and their own SIG's, never another SIG's."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True
    model = Milestone
    extra = 0
    fields = ["kind", "label", "at", "all_day", "quoted_timezone", "sig", "sends_reminders", "exception_deadline"]
    autocomplete_fields = ["sig"]


class TrackedEnhancementInline(SigScopedInlineMixin, admin.TabularInline):
    """A compact, read-only list on the release page: statuses change on each row's own page (or the list's
    status column), where the tracking service keeps their history."""

    model = TrackedEnhancement
    extra = 0
    fields = ["kep", "sig", "target_stage", "status", "enhancements_contact"]
    readonly_fields = fields
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Release)
class ReleaseAdmin(GuardedActionsMixin, admin.ModelAdmin):
    list_display = [
        "version",
        "name",
        "state",
        "cycle_start",
        "planned_release_date",
        "actual_release_date",
        "tracked",
        "done",
    ]
    list_filter = ["state"]
    search_fields = ["version", "name"]
    ordering = ["-major", "-minor"]
    inlines = [MilestoneInline, TrackedEnhancementInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                tracked_count=Count("tracked_enhancements"),
                done_count=Count("tracked_enhancements", filter=Q(tracked_enhancements__status=EnhancementStatus.DONE)),
            )
        )

    @admin.display(ordering="tracked_count", description="Tracked")
    def tracked(self, obj):
        return obj.tracked_count

    @admin.display(ordering="done_count", description="Done")
    def done(self, obj):
        return obj.done_count

    actions = ["recompute_stats"]

    @admin.action(description="Recompute stats of the selected releases", permissions=["change"])
    def recompute_stats(self, request, queryset):
        rows = release_stats_compute(release_ids=list(queryset.values_list("pk", flat=True)))
        releases = len({row.release_id for row in rows})
        self.log_action_changes(request, queryset, "Recomputed stats (bulk action).")
        self.message_user(request, f"Stats recomputed for {releases} release(s) ({len(rows)} rows).")


@admin.register(Milestone)
class MilestoneAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """A SIG's own milestone (a SIG soft freeze) is seen and changed only by leads of that SIG; release-wide
    milestones (no SIG) are seen by all staff and changed by any SIG lead, as releases are. Liaisons and
    viewers read."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True
    list_display = ["release", "kind", "label", "at", "all_day", "quoted_timezone", "sig", "sends_reminders"]
    list_filter = ["kind", "sends_reminders", "release", "sig"]
    search_fields = ["label", "source_text", "release__version"]
    date_hierarchy = "at"
    autocomplete_fields = ["release", "sig"]
    list_select_related = ["release", "sig"]
    actions = ["disable_reminders", "enable_reminders"]

    @admin.action(description="Stop reminders for the selected milestones", permissions=["change"])
    def disable_reminders(self, request, queryset):
        self._set_reminders(request, queryset, False)

    @admin.action(description="Send reminders for the selected milestones", permissions=["change"])
    def enable_reminders(self, request, queryset):
        self._set_reminders(request, queryset, True)

    def _set_reminders(self, request, queryset, on: bool):
        changed = list(queryset.exclude(sends_reminders=on))
        Milestone.objects.filter(pk__in=[row.pk for row in changed]).update(sends_reminders=on)
        self.log_action_changes(request, changed, f"Reminders {'on' if on else 'off'} (bulk action).")
        self.message_user(request, f"Reminders {'on' if on else 'off'} for {len(changed)} milestones.")


class StatusChangeInline(admin.TabularInline):
    model = EnhancementStatusChange
    extra = 0
    can_delete = False
    fields = ["from_status", "to_status", "changed_at", "assumed", "author", "source", "link", "note"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def _status_action(status: EnhancementStatus):
    @transaction.atomic
    def action(modeladmin, request, queryset):
        # Lock the rows first so that the log names exactly the rows the service changes, with their old status.
        before = {
            row.pk: row for row in queryset.select_related(None).select_for_update(of=("self",)) if row.status != status
        }
        changed = tracked_enhancement_bulk_set_status(tracked_enhancements=queryset, status=status, user=request.user)
        modeladmin.log_action_changes(
            request,
            before.values(),
            lambda row: f"Status {row.get_status_display()} → {status.label} (bulk action).",
        )
        modeladmin.message_user(request, f"{changed} enhancements marked “{status.label}”.")

    action.__name__ = f"mark_{status.value}"
    action.short_description = f"Mark selected as “{status.label}”"
    action.allowed_permissions = ("change",)
    return action


class TrackedEnhancementForm(forms.ModelForm):
    """The row's own fields, plus why its status changes (kept on the history row and the KEP's timeline)."""

    reason = forms.CharField(
        required=False,
        max_length=500,
        help_text="Why the status changes, e.g. “missed code freeze: PR #123 not merged”. Kept in the history.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "sig" in self.fields:
            self.fields["sig"].required = False
            self.fields["sig"].help_text = "Empty: the KEP's owning SIG."
        if "target_stage" in self.fields:
            self.fields["target_stage"].help_text = "Empty: the KEP's stage."

    def clean(self):
        cleaned = super().clean()
        kep = cleaned.get("kep")
        if kep is not None and not cleaned.get("sig") and "sig" in self.fields:
            # The board's SIG is the KEP's owning SIG unless the lead says otherwise.
            cleaned["sig"] = kep.owning_sig
            self.instance.sig = kep.owning_sig
        if kep is None and "kep" in self.fields and not cleaned.get("sig") and "sig" in self.fields:
            self.add_error("sig", "A feature without a KEP needs its SIG.")
        return cleaned

    class Meta:
        model = TrackedEnhancement
        fields = [
            "release",
            "kep",
            "feature_name",
            "sig",
            "type",
            "target_stage",
            "status",
            "enhancements_contact",
            "assignee",
            "prr_status",
            "prr_approver",
            "docs_status",
            "docs_pr_urls",
            "feature_blog",
            "feature_blog_pr_url",
            "notes",
        ]
        widgets = {"docs_pr_urls": forms.Textarea(attrs={"rows": 2, "cols": 80})}


class StatusListForm(forms.ModelForm):
    """The changelist's editable status column: GitHub owns the status of a synced row."""

    class Meta:
        model = TrackedEnhancement
        fields = ["status"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.is_synced:
            self.fields["status"].disabled = True


#: Fields a GitHub sync owns on a synced row (releases.services.github_sync): read-only in the admin.
GITHUB_OWNED_FIELDS = ("release", "kep", "sig", "target_stage", "status")
GITHUB_FIELDS = ("github_issue_link", "github_synced_at", "board_status")


class ExceptionInline(admin.TabularInline):
    """The KEP's exception requests, one per freeze (the handbook's "Exception Requests" view). The board status
    follows the decision through the status field above (exception pending / approved, or removed)."""

    model = EnhancementException
    extra = 0
    fields = ["freeze", "requested_at", "thread_url", "decision", "decided_at", "deadline", "notes"]
    formfield_overrides = {
        models.TextField: {"widget": forms.Textarea(attrs={"rows": 2, "cols": 18})},
        models.URLField: {"widget": forms.URLInput(attrs={"size": 18})},
    }


@admin.register(EnhancementException)
class EnhancementExceptionAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """Every exception request across releases, for the release team's "Exception Requests" view; each row is
    also on its tracked enhancement's page. Scoped to the SIG of that enhancement."""

    sig_lookup = "tracked_enhancement__sig"
    sig_scoped_fields = {"tracked_enhancement": "sig"}
    list_display = [
        "release",
        "tracked_enhancement",
        "kep_number",
        "freeze",
        "decision",
        "requested_at",
        "decided_at",
        "deadline",
        "source",
    ]
    list_filter = ["decision", "freeze", "source", "release"]
    search_fields = [
        "=kep_number",
        "=tracked_enhancement__kep__number",
        "title",
        "tracked_enhancement__kep__title",
        "notes",
    ]
    autocomplete_fields = ["tracked_enhancement"]
    list_select_related = ["release", "tracked_enhancement__release", "tracked_enhancement__kep"]
    date_hierarchy = "requested_at"


class ExceptionListFilter(admin.SimpleListFilter):
    """Rows with an exception request in a given state (or none at all)."""

    title = "exception request"
    parameter_name = "exception"

    def lookups(self, request, model_admin):
        by_freeze = [(f"freeze:{value}", f"For {label}") for value, label in Freeze.choices]
        return [("none", "None"), *ExceptionDecision.choices, *by_freeze]

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        requests = EnhancementException.objects.filter(tracked_enhancement=OuterRef("pk"))
        if value == "none":
            return queryset.filter(~Exists(requests))
        if value.startswith("freeze:"):
            return queryset.filter(Exists(requests.filter(freeze=value.removeprefix("freeze:"))))
        return queryset.filter(Exists(requests.filter(decision=value)))


class ReleaseListFilter(admin.RelatedFieldListFilter):
    """The release filter of the freeze-day list, which opens on the current release: its "All" keeps an explicit
    `release__isnull=False`, so choosing every release is not taken for "nothing chosen" and sent back there."""

    def choices(self, changelist):
        everything, *others = super().choices(changelist)
        everything["query_string"] = changelist.get_query_string(
            {self.lookup_kwarg_isnull: "False"}, [self.lookup_kwarg]
        )
        everything["selected"] = self.lookup_val is None
        return [everything, *others]


#: The changelist's query parameter of the release filter (Django's for `release` with an exact id).
RELEASE_PARAM = "release__id__exact"


@admin.action(description="Request an exception (pending, asked now)", permissions=["change"])
def request_exception(modeladmin, request, queryset):
    """Freeze day in a few clicks: tick the row, pick this, Go. One pending request per row for the freeze it
    missed; on one row, its page opens at the requests to add the thread and deadline."""
    rows = list(queryset.select_related("release", "kep"))
    made = []
    for row in rows:
        created = exception_request_create(tracked_enhancement=row, user=request.user)
        if created is None:
            modeladmin.message_user(
                request, f"{row.subject} already asked for an exception to that freeze.", messages.WARNING
            )
        else:
            made.append((row, created))
    modeladmin.log_action_changes(
        request,
        [row for row, _ in made],
        lambda row: f"Exception requested ({dict(made)[row].get_freeze_display()}, pending; bulk action).",
    )
    for row, created in made:
        modeladmin.message_user(
            request, f"{row.subject}: {created.get_freeze_display().lower()} exception requested (pending)."
        )
    if len(rows) == 1 and made:
        url = reverse("admin:releases_trackedenhancement_change", args=[rows[0].pk])
        return HttpResponseRedirect(f"{url}#exceptions-group")
    return None


@admin.register(TrackedEnhancement)
class TrackedEnhancementAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    """Freeze day: the KEP, its SIG, stage, status (editable in the list), PRR, exception and the contact fit on a
    1366-px laptop screen; a filter for every column of the board and a bulk action per status. Every status
    change goes through the tracking service (which keeps the history and queues the stats); the model refuses
    any other write. Each row's page shows the handbook's checklist comment, to copy onto the tracking issue."""

    form = TrackedEnhancementForm
    list_display = [
        "release_version",
        "kep_number",
        "short_title",
        "sig",
        "stage",
        "status",
        "prr",
        "exception",
        "contact",
    ]
    list_display_links = ["kep_number", "short_title"]
    list_editable = ["status"]
    list_filter = [
        ("release", ReleaseListFilter),
        "sig",
        "status",
        "target_stage",
        "type",
        "prr_status",
        ExceptionListFilter,
        "docs_status",
        "feature_blog",
        ("enhancements_contact", admin.RelatedOnlyFieldListFilter),
    ]
    search_fields = ["=kep__number", "kep__title", "feature_name", "notes", "enhancements_contact__github"]
    autocomplete_fields = ["release", "kep", "sig", "enhancements_contact", "assignee", "prr_approver"]
    list_select_related = ["release", "kep", "sig", "enhancements_contact", "prr_approver"]
    inlines = [ExceptionInline, StatusChangeInline]
    actions = [request_exception, *(_status_action(status) for status in EnhancementStatus)]

    class Media:
        css = {"all": ["releases/admin-board.css"]}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(**latest_exception_annotations())

    # The site's navigation sidebar takes a fifth of a laptop's width: on freeze day the board needs it (the
    # breadcrumbs and the home page still lead everywhere).
    def changelist_view(self, request, extra_context=None):
        if request.method == "GET" and not request.GET:
            # Freeze day is about the current release: open on it (its filter's "All" shows every release).
            # A redirect, not a silent default, so that actions and "select all" apply to the rows shown.
            current = Release.objects.current()
            if current is not None:
                return HttpResponseRedirect(f"{request.path}?{RELEASE_PARAM}={current.pk}")
        return super().changelist_view(request, {"is_nav_sidebar_enabled": False, **(extra_context or {})})

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {"is_nav_sidebar_enabled": False, **(extra_context or {})}
        return super().changeform_view(request, object_id, form_url, extra_context)

    @admin.display(ordering="target_stage", description="Stage")
    def stage(self, obj):
        return obj.get_target_stage_display() or "—"

    @admin.display(ordering="prr_status", description="PRR")
    def prr(self, obj):
        if obj.prr_status == PrrStatus.APPROVED and obj.prr_approver:
            return f"✔ @{obj.prr_approver.github}"
        return obj.get_prr_status_display()

    @admin.display(description="Exception")
    def exception(self, obj):
        freeze = getattr(obj, "exception_freeze", None)
        if not freeze:
            return "—"
        text = f"{Freeze(freeze).label.removesuffix(' freeze')}: {ExceptionDecision(obj.exception_decision).label}"
        if obj.exception_deadline and obj.exception_decision != ExceptionDecision.REJECTED:
            text += f" (by {obj.exception_deadline:%d %b})"
        return text

    @admin.display(ordering="enhancements_contact__github", description="Contact")
    def contact(self, obj):
        return f"@{obj.enhancements_contact.github}" if obj.enhancements_contact else "—"

    @admin.display(description="Checklist comment (copy onto the tracking issue; nothing is posted)")
    def checklist_comment(self, obj):
        if obj is None or obj.pk is None or obj.kep_id is None:
            return "—"  # the checklist is a KEP's (its kep.yaml, PRR file, tracking issue)
        text = tracked_enhancement_checklist(tracked_enhancement=obj)
        return format_html(
            '<textarea readonly rows="16" cols="100" class="vLargeTextField checklist-comment" '
            'onfocus="this.select()" aria-label="Checklist comment">{}</textarea>',
            text,
        )

    @admin.display(ordering="release", description="Release")
    def release_version(self, obj):
        return obj.release.version

    @admin.display(ordering="kep__number", description="KEP")
    def kep_number(self, obj):
        return obj.kep.number if obj.kep_id else "—"

    @admin.display(ordering="kep__title", description="Title")
    def short_title(self, obj):
        title = obj.kep.title if obj.kep_id else f"{obj.feature_name} {KEPLESS_NOTE}"
        return title if len(title) <= 48 else title[:47] + "…"

    @admin.display(description="GitHub issue")
    def github_issue_link(self, obj):
        if not obj.github_issue_url:
            return "—"
        return format_html('<a href="{}">#{}</a>', obj.github_issue_url, obj.github_issue_number)

    def get_readonly_fields(self, request, obj=None):
        readonly = [*super().get_readonly_fields(request, obj), *GITHUB_FIELDS]
        if obj is not None:
            readonly.append("checklist_comment")
        if obj is not None and obj.is_synced:
            readonly += GITHUB_OWNED_FIELDS
        return readonly

    def get_exclude(self, request, obj=None):
        # A status change's reason makes sense only where the status can change.
        if obj is not None and obj.is_synced:
            return ["reason"]
        return super().get_exclude(request, obj)

    def get_changelist_form(self, request, **kwargs):
        return StatusListForm

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("status", EnhancementStatus.AT_RISK_ENHANCEMENTS)
        # "Add" from the list keeps its filters in `_changelist_filters`: the release filtered on is the new row's.
        filters = QueryDict(request.GET.get("_changelist_filters", ""))
        release_id = filters.get(RELEASE_PARAM)
        if "release" not in initial and release_id and release_id.isdigit():
            initial["release"] = release_id
        return initial

    def save_model(self, request, obj, form, change):
        # Status goes through the tracking service: one history row per change, with author, source and reason.
        reason = form.cleaned_data.get("reason", "") if "reason" in form.fields else ""
        if not change:
            fields = {
                name: form.cleaned_data[name]
                for name in form.cleaned_data
                if name not in ("release", "kep", "status", "reason")
                and name in {f.name for f in TrackedEnhancement._meta.fields}
            }
            created = tracked_enhancement_create(
                release=obj.release,
                kep=obj.kep,
                status=obj.status,
                user=request.user,
                note=reason,
                **{k: v for k, v in fields.items() if v not in (None, "")},
            )
            obj.pk = created.pk
            obj.refresh_from_db()
            return
        status = obj.status
        if "status" in form.changed_data:
            obj.status = form.initial.get("status", status)
            obj.save()
            tracked_enhancement_set_status(tracked_enhancement=obj, status=status, user=request.user, note=reason)
        else:
            obj.save()


class ReadOnlyRecordAdmin(admin.ModelAdmin):
    """Computed or historical records: nobody adds or changes them here. A superuser may delete one, giving a
    reason that the admin log keeps."""

    delete_confirmation_template = "admin/releases/delete_with_reason.html"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # one at a time, each with its reason
        return actions

    def delete_view(self, request, object_id, extra_context=None):
        extra_context = {**(extra_context or {}), "reason_required": True}
        if request.method == "POST" and not request.POST.get("reason", "").strip():
            extra_context["reason_error"] = "Say why this record is deleted."
            request.POST = QueryDict()  # not confirmed: the page asks again, with the error
        return super().delete_view(request, object_id, extra_context)

    def log_deletions(self, request, queryset):
        reason = request.POST.get("reason", "").strip()
        return LogEntry.objects.log_actions(
            user_id=request.user.pk,
            queryset=queryset,
            action_flag=DELETION,
            change_message=f"Deleted: {reason}",
            single_object=len(queryset) == 1,
        )


class WholeRecordMixin:
    """The whole history record, superseded rows and withdrawals included (the default manager hides them):
    the admin is where curators audit corrections. Below the SIG scope in the MRO, which filters this."""

    def get_queryset(self, request):
        queryset = EnhancementStatusChange.all_objects.get_queryset()
        ordering = self.get_ordering(request)
        return queryset.order_by(*ordering) if ordering else queryset


@admin.register(EnhancementStatusChange)
class EnhancementStatusChangeAdmin(SigScopedAdminMixin, WholeRecordMixin, ReadOnlyRecordAdmin):
    sig_lookup = "tracked_enhancement__sig"
    sig_scoped_fields = {"tracked_enhancement": "sig"}
    list_display = [
        "tracked_enhancement",
        "from_status",
        "to_status",
        "changed_at",
        "assumed",
        "author",
        "source",
        "supersedes",
        "withdrawn",
    ]
    list_filter = ["to_status", "source", "assumed", "withdrawn", "tracked_enhancement__release"]
    search_fields = ["=tracked_enhancement__kep__number", "author", "note"]
    date_hierarchy = "changed_at"
    list_select_related = ["tracked_enhancement__release", "tracked_enhancement__kep"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return ReadOnlyRecordAdmin.has_delete_permission(self, request, obj)


class RetroItemCategoryForm(forms.ModelForm):
    """One category's items: the category is the inline's, never typed; only action items have a status."""

    category = None  # set by each inline's form class

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.category = self.category
        if "text" in self.fields:
            self.fields["text"].widget = forms.Textarea(attrs={"rows": 2, "cols": 60})
        if "status" in self.fields:
            self.fields["status"].required = True
            self.fields["status"].choices = ActionStatus.choices
            self.fields["status"].initial = ActionStatus.OPEN
        elif self.instance.pk is None:
            self.instance.status = ""


def _retro_inline(category: RetroCategory, fields: list[str]):
    form = type(f"{category.name.title()}Form", (RetroItemCategoryForm,), {"category": category})
    form.Meta = type("Meta", (), {"model": RetroItem, "fields": fields})

    class Inline(admin.TabularInline):
        model = RetroItem
        extra = 0
        verbose_name = category.label.lower()
        verbose_name_plural = category.label + ("s" if category == RetroCategory.ACTION_ITEM else "")
        autocomplete_fields = [name for name in ("owner", "due_release") if name in fields]

        def get_queryset(self, request):
            return super().get_queryset(request).filter(category=category)

    Inline.form = form
    Inline.fields = fields
    Inline.__name__ = Inline.__qualname__ = f"{category.name.title().replace('_', '')}Inline"
    return Inline


#: A form per category: went well and to improve are text; action items have an owner, a
#: status (open unless said otherwise) and the release they are due in.
WentWellInline = _retro_inline(RetroCategory.WENT_WELL, ["text", "order"])
ToImproveInline = _retro_inline(RetroCategory.TO_IMPROVE, ["text", "order"])
ActionItemInline = _retro_inline(RetroCategory.ACTION_ITEM, ["text", "owner", "status", "due_release", "order"])


@admin.register(Retrospective)
class RetrospectiveAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    list_display = ["release", "sig", "date", "recorded_tracked", "recorded_merged"]
    list_filter = ["sig", "release"]
    search_fields = ["release__version", "summary"]
    autocomplete_fields = ["release", "sig"]
    inlines = [WentWellInline, ToImproveInline, ActionItemInline]
    list_select_related = ["release", "sig"]


@admin.register(RetroItem)
class RetroItemAdmin(SigScopedAdminMixin, admin.ModelAdmin):
    sig_lookup = "retrospective__sig"
    sig_scoped_fields = {"retrospective": "sig"}
    list_display = ["text", "category", "retrospective", "owner", "status", "due_release"]
    list_filter = ["category", "status", "retrospective__release", "due_release"]
    search_fields = ["text", "owner__github"]
    autocomplete_fields = ["retrospective", "owner", "due_release"]
    list_select_related = ["retrospective__release", "retrospective__sig", "owner", "due_release"]
    actions = ["mark_done", "mark_dropped"]

    @admin.action(description="Mark selected action items done", permissions=["change"])
    def mark_done(self, request, queryset):
        self.message_user(request, f"{self._set_status(request, queryset, 'done')} marked done.")

    @admin.action(description="Mark selected action items dropped", permissions=["change"])
    def mark_dropped(self, request, queryset):
        self.message_user(request, f"{self._set_status(request, queryset, 'dropped')} dropped.")

    def _set_status(self, request, queryset, status: str) -> int:
        changed = list(queryset.filter(category="action_item").exclude(status=status))
        RetroItem.objects.filter(pk__in=[row.pk for row in changed]).update(status=status)
        self.log_action_changes(request, changed, f"Status → {status} (bulk action).")
        return len(changed)


@admin.register(ReleaseStats)
class ReleaseStatsAdmin(ReadOnlyRecordAdmin):
    """Written only by the stats service (`compute_stats`, the queued recompute, the release action)."""

    list_display = ["release", "sig", "source", "tracked", "done", "deferred", "removed", "merge_rate", "computed_at"]
    list_filter = ["source", "sig"]
    search_fields = ["release__version"]
    list_select_related = ["release", "sig"]


@admin.register(ReleaseTeamMember)
class ReleaseTeamMemberAdmin(admin.ModelAdmin):
    """Each release's team from its roster (`import_releases`); a correction here lasts until the next import."""

    list_display = ["release", "role_label", "role", "person", "is_shadow"]
    list_filter = ["role", "is_shadow", "release"]
    search_fields = ["person__github", "person__name", "role_label"]
    autocomplete_fields = ["person"]
    list_select_related = ["release", "person"]


@admin.register(FeatureSheetRow)
class FeatureSheetRowAdmin(admin.ModelAdmin):
    """The early releases' feature sheets as published (`import_releases` rewrites them from features.csv)."""

    list_display = ["release", "position", "name", "number", "stage", "sig", "assignees"]
    list_filter = ["release", "stage"]
    search_fields = ["name", "=number", "assignees"]
    list_select_related = ["release", "sig"]
    raw_id_fields = ["tracked_enhancement"]


# -- people: who may change a person depends on the KEPs and tracked enhancements they work on ----------------


@admin.register(Person)
class PersonAdmin(PublicSigScopedAdminMixin, admin.ModelAdmin):
    """A person's details (email, reminder opt-out) decide where their reminders go, so only leads of a SIG
    the person belongs to (`releases.selectors.person_sig_ids`: KEPs they author, review or approve, enhancements
    they are the contact of) change or delete them. A person who belongs to no SIG yet is changed by any lead.
    Liaisons may add people (to name an enhancements contact) but change none."""

    editing_roles = (SigRole.LEAD,)
    sig_optional = True

    def obj_sig_ids(self, obj):
        return person_sig_ids(obj)

    list_display = ["github", "name", "email", "reminders_opt_out"]
    list_filter = ["reminders_opt_out"]
    search_fields = ["github", "name", "email"]
    actions = ["opt_out_of_reminders"]

    @admin.action(description="Opt the selected people out of reminder emails", permissions=["change"])
    def opt_out_of_reminders(self, request, queryset):
        changed = list(queryset.filter(reminders_opt_out=False))
        Person.objects.filter(pk__in=[row.pk for row in changed]).update(reminders_opt_out=True)
        self.log_action_changes(request, changed, "Opted out of reminders (bulk action).")
        self.message_user(request, f"{len(changed)} people opted out of reminders.")
