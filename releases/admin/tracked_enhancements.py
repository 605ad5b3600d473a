"""The freeze-day board: tracked enhancements, each with its exception requests and status history."""

from django.contrib import admin
from django.http import HttpResponseRedirect, QueryDict
from django.utils.html import format_html

from community.admin_scope import SigScopedAdminMixin

from ..choices import EnhancementStatus, ExceptionDecision, Freeze, PrrStatus
from ..models import KEPLESS_NOTE, Release, TrackedEnhancement
from ..selectors import latest_exception_annotations, tracked_enhancement_checklist
from ..services import tracked_enhancement_create, tracked_enhancement_set_status
from .exception_requests import ExceptionInline
from .status_history import StatusChangeInline
from .tracked_enhancement_actions import mark_status_action, request_exception
from .tracked_enhancement_filters import RELEASE_PARAM, ExceptionListFilter, ReleaseListFilter
from .tracked_enhancement_forms import StatusListForm, TrackedEnhancementForm

#: Fields a GitHub sync owns on a synced row (github_sync.services.github_sync): read-only in the admin.
GITHUB_OWNED_FIELDS = ("release", "kep", "sig", "target_stage", "status")
GITHUB_FIELDS = ("github_issue_link", "github_synced_at", "board_status")


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
    actions = [request_exception, *(mark_status_action(status) for status in EnhancementStatus)]

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
