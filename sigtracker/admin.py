"""Admin base classes shared by the apps."""

from .roles import user_editable_sig_ids, user_visible_sig_ids


class SigScopedAdminMixin:
    """Limits an admin to the rows of the SIGs the user belongs to (superusers see everything).

    `sig_lookup` is the path from the model to its Sig, e.g. "sig" or "meeting__sig". Rows of other SIGs are
    absent from the changelist and from every object URL (change, delete, history answer as for a missing id),
    and foreign-key choices only offer the user's own SIGs' rows.
    """

    sig_lookup = "sig"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        visible = user_visible_sig_ids(request.user)
        if visible is None:
            return queryset
        return queryset.filter(**{f"{self.sig_lookup}__in": visible})

    def _obj_sig_id(self, obj):
        target = obj
        parts = self.sig_lookup.split("__")
        for part in parts[:-1]:
            target = getattr(target, part)
        return getattr(target, f"{parts[-1]}_id")

    def _may_edit(self, request, obj) -> bool:
        editable = user_editable_sig_ids(request.user)
        return editable is None or obj is None or self._obj_sig_id(obj) in editable

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._may_edit(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._may_edit(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        editable = user_editable_sig_ids(request.user)
        if editable is not None:
            related = db_field.related_model
            if related._meta.label == "keps.Sig":
                kwargs["queryset"] = related.objects.filter(pk__in=editable)
            elif related._meta.label == "meetings.Meeting":
                kwargs["queryset"] = related.objects.filter(sig__in=editable)
            elif related._meta.label == "releases.Retrospective":
                kwargs["queryset"] = related.objects.filter(sig__in=editable)
            elif related._meta.label == "releases.TrackedEnhancement":
                kwargs["queryset"] = related.objects.filter(sig__in=editable)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        # Defence in depth: a crafted POST cannot move a row into (or create one in) another SIG.
        if not self._may_edit(request, obj):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied("You may only change rows of your own SIGs.")
        super().save_model(request, obj, form, change)


class SigScopedInlineMixin:
    """For inlines on a parent every lead may edit (a release): only rows of the user's editable SIGs appear,
    so the formset can neither show nor change another SIG's rows."""

    sig_lookup = "sig"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        editable = user_editable_sig_ids(request.user)
        if editable is None:
            return queryset
        return queryset.filter(**{f"{self.sig_lookup}__in": editable})

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        editable = user_editable_sig_ids(request.user)
        if editable is not None and db_field.related_model._meta.label == "keps.Sig":
            kwargs["queryset"] = db_field.related_model.objects.filter(pk__in=editable)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
