"""What `import_releases` writes from the release directories: each release's team and the early feature sheets."""

from django.contrib import admin

from ..models import FeatureSheetRow, ReleaseTeamMember


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
