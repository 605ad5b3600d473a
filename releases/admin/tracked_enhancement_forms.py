"""The forms of the tracked enhancement admin: a row's page, and the changelist's editable status column."""

from django import forms

from ..models import TrackedEnhancement


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
