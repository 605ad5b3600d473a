"""Admin base classes shared by the apps: SIG scope (issue 17, items C and D) and guarded, logged bulk
actions (issue 17, item B)."""

import functools

from django import forms
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied

from .roles import EDITING_ROLES, user_editable_sig_ids, user_visible_sig_ids


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


class SigScopedAdminMixin(GuardedActionsMixin):
    """Limits an admin to the rows of the SIGs the user belongs to (superusers see everything).

    `sig_lookup` is the path from the model to its Sig, e.g. "sig" or "meeting__sig". Rows of other SIGs are
    absent from the changelist and from every object URL (change, delete, history answer as for a missing id),
    and foreign-key choices only offer the user's own SIGs' rows.

    - `editing_roles`: the roles of a SIG that change its rows (leads and liaisons unless an admin says leads).
    - `sig_optional`: rows without a SIG (a release-wide milestone) are seen by every staff user and changed by
      anyone holding one of `editing_roles` in some SIG.
    - `scope_visibility = False`: every staff user sees every row (KEPs and people are public and referred to
      across SIGs); only changing and deleting are scoped.
    """

    sig_lookup = "sig"
    editing_roles = EDITING_ROLES
    sig_optional = False
    scope_visibility = True
    #: Foreign keys whose choices are limited to the user's editable SIGs: related model -> lookup to its Sig.
    fk_sig_lookups = {
        "keps.Sig": "pk",
        "meetings.Meeting": "sig",
        "releases.Retrospective": "sig",
        "releases.TrackedEnhancement": "sig",
    }

    def editable_sig_ids(self, request) -> set[int] | None:
        return user_editable_sig_ids(request.user, roles=self.editing_roles)

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        visible = user_visible_sig_ids(request.user)
        if visible is None or not self.scope_visibility:
            return queryset
        scoped = queryset.filter(**{f"{self.sig_lookup}__in": visible})
        if self.sig_optional:
            scoped = scoped | queryset.filter(**{f"{self.sig_lookup}__isnull": True})
        return scoped

    def scope_select_related(self, queryset):
        path = self.sig_lookup.rpartition("__")[0]
        return queryset.select_related(path) if path else queryset

    def obj_sig_ids(self, obj) -> set[int]:
        """The SIGs a row belongs to (empty for a row without one)."""
        target = obj
        parts = self.sig_lookup.split("__")
        for part in parts[:-1]:
            target = getattr(target, part, None)
            if target is None:
                return set()
        sig_id = getattr(target, f"{parts[-1]}_id")
        return set() if sig_id is None else {sig_id}

    def _may_edit(self, request, obj) -> bool:
        editable = self.editable_sig_ids(request)
        if editable is None:
            return True
        if not editable:
            # No editing role in any SIG: model permissions from a group alone change nothing.
            return False
        if obj is None:
            return True
        sig_ids = self.obj_sig_ids(obj)
        if not sig_ids:
            return self.sig_optional
        return bool(sig_ids & editable)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._may_edit(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._may_edit(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        editable = self.editable_sig_ids(request)
        lookup = self.fk_sig_lookups.get(db_field.related_model._meta.label)
        if editable is not None and lookup:
            kwargs["queryset"] = db_field.related_model._default_manager.filter(**{f"{lookup}__in": editable})
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        # Defence in depth: a crafted POST cannot move a row into (or create one in) another SIG.
        if not self._may_edit(request, obj):
            raise PermissionDenied("You may only change rows of your own SIGs.")
        super().save_model(request, obj, form, change)


class SigScopedInlineMixin:
    """For inlines on a parent every lead may edit (a release): only rows of the user's editable SIGs appear,
    so the formset can neither show nor change another SIG's rows. With `sig_optional`, rows without a SIG
    (release-wide milestones) appear too."""

    sig_lookup = "sig"
    editing_roles = EDITING_ROLES
    sig_optional = False

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        editable = user_editable_sig_ids(request.user, roles=self.editing_roles)
        if editable is None:
            return queryset
        scoped = queryset.filter(**{f"{self.sig_lookup}__in": editable})
        if self.sig_optional:
            scoped = scoped | queryset.filter(**{f"{self.sig_lookup}__isnull": True})
        return scoped

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        editable = user_editable_sig_ids(request.user, roles=self.editing_roles)
        if editable is not None and db_field.related_model._meta.label == "keps.Sig":
            kwargs["queryset"] = db_field.related_model.objects.filter(pk__in=editable)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
