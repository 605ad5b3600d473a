"""Admin building blocks that know no domain: bulk actions guarded row by row and logged."""

import functools

from django import forms
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied


class GuardedActionsMixin:
    """Bulk actions that ask for the same rights as the change form, row by row, and leave an audit trail.

    Django only hides an action whose `allowed_permissions` the user lacks at the model level, and applies it
    to every selected row the changelist shows; it logs nothing. Here every action (ours and the site's
    `delete_selected`) needs its permissions on *each* selected row, SIG scope included (`has_change_permission(
    request, obj)`), or the whole request answers 403 and nothing changes: a liaison cannot mix one foreign row
    into a selection. An action without `allowed_permissions` counts as a change. Actions call
    `log_action_changes` with the rows they actually changed: one admin LogEntry each, like the change form.
    """

    #: What an action needs when it does not say (Django's own default is "nothing").
    default_action_permissions = ("change",)

    def get_action(self, action):
        found = super().get_action(action)
        if found is None:
            return None
        func, name, description = found
        return self._guard_action(func), name, description

    def _guard_action(self, func):
        permissions = getattr(func, "allowed_permissions", None) or self.default_action_permissions

        @functools.wraps(func)
        def guarded(modeladmin, request, queryset):
            modeladmin.action_rows_check(request, queryset, permissions)
            return func(modeladmin, request, queryset)

        guarded.allowed_permissions = permissions
        return guarded

    def action_rows_check(self, request, queryset, permissions) -> None:
        """Raise PermissionDenied unless the user holds `permissions` on every selected row.

        Selected ids the changelist does not show (another SIG's rows) are checked too, instead of being
        dropped silently, so that a crafted selection is refused rather than half applied.
        """
        # Read "select all N rows" as Django's action form does, so both agree on which rows the action gets.
        if forms.BooleanField(required=False).to_python(request.POST.get("select_across")):
            rows = queryset
        else:
            selected = request.POST.getlist(ACTION_CHECKBOX_NAME)
            rows = self.model._default_manager.filter(pk__in=selected)
        rows = self.scope_select_related(rows)
        for permission in permissions:
            check = getattr(self, f"has_{permission}_permission")
            if not check(request):
                raise PermissionDenied
            for row in rows:
                if not check(request, row):
                    raise PermissionDenied(f"You may not {permission} {row}.")

    def scope_select_related(self, queryset):
        return queryset

    def changelist_view(self, request, extra_context=None):
        # Django renders the changelist (200, nothing done) for an action the user may not run; say 403.
        if request.method == "POST" and ACTION_CHECKBOX_NAME in request.POST:
            names = request.POST.getlist("action")
            try:
                name = names[int(request.POST.get("index", 0))]
            except (IndexError, ValueError):
                name = names[0] if names else ""
            known = {action_name for _func, action_name, _description in self._get_base_actions()}
            if name in known and name not in self.get_actions(request):
                raise PermissionDenied
        return super().changelist_view(request, extra_context)

    def log_action_changes(self, request, rows, message) -> None:
        """One LogEntry per row an action changed, in the user's name; `message` is a text or a function of
        the row (e.g. to name its previous status)."""
        for row in rows:
            self.log_change(request, row, message(row) if callable(message) else message)
