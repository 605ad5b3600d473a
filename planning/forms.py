"""The plan page's two forms: a lead's decision and anyone's proposal. Shape and size only; the service decides."""

from django import forms

from .choices import PlanDecisionKind, ProposedStage
from .models import NOTE_MAX_LENGTH

_KEP_NUMBER = {"min_value": 1, "max_value": 99999}


class DecisionForm(forms.Form):
    kep = forms.IntegerField(label="KEP", **_KEP_NUMBER)
    decision = forms.ChoiceField(choices=PlanDecisionKind.choices)
    note = forms.CharField(required=False, max_length=NOTE_MAX_LENGTH, widget=forms.TextInput)


class ProposalForm(forms.Form):
    kep = forms.IntegerField(label="KEP number", **_KEP_NUMBER)
    stage = forms.ChoiceField(choices=ProposedStage.choices)
    note = forms.CharField(required=False, max_length=NOTE_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 2}))
