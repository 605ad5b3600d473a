"""SIG scope for the admin: a role in one SIG reaches that SIG's rows only. Each admin
says where its rows' SIG is (`sig_lookup`) and which of its foreign keys to offer only within the user's SIGs
(`sig_scoped_fields`); bulk actions are guarded row by row (`core.admin.GuardedActionsMixin`)."""

from django.core.exceptions import PermissionDenied

from core.admin import GuardedActionsMixin

from .models import Sig
from .roles import EDITING_ROLES, user_editable_sig_ids, user_visible_sig_ids


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
    #: This admin's foreign keys (other than to Sig, always scoped) whose choices are limited to the user's
    #: editable SIGs: field name -> lookup from the related row to its Sig, e.g. {"meeting": "sig"}.
    sig_scoped_fields: dict[str, str] = {}

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
        lookup = "pk" if db_field.related_model is Sig else self.sig_scoped_fields.get(db_field.name)
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
        if editable is not None and db_field.related_model is Sig:
            kwargs["queryset"] = db_field.related_model.objects.filter(pk__in=editable)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class PublicSigScopedAdminMixin(SigScopedAdminMixin):
    """KEPs and people are public and referred to across SIGs (a sig-node meeting discusses a sig-scheduling
    KEP), so every staff user sees them all; changing and deleting stay within the user's SIGs."""

    scope_visibility = False
