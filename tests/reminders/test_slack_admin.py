"""Who manages a SIG's Slack channel: that SIG's leads (the webhook URL is a credential); nobody else sees it."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from community.roles import sig_membership_grant
from reminders.channels import slack_webhook_set_url
from reminders.models import SlackWebhook
from tests.factories import SigFactory

pytestmark = pytest.mark.django_db


def _login(client, name, sig, role):
    user = get_user_model().objects.create_user(name, password="x" * 12)
    sig_membership_grant(user=user, sig=sig, role=role)
    client.force_login(user)


def test_a_lead_manages_their_sigs_channel_only_and_others_cannot_see_any(client):
    node, scheduling = SigFactory(slug="sig-node"), SigFactory(slug="sig-scheduling")
    hooks = {
        sig.slug: slack_webhook_set_url(
            webhook=SlackWebhook(sig=sig, channel=f"#{sig.slug}"),
            url=f"https://hooks.slack.com/services/T1/B1/{sig.pk}x",
        )
        for sig in (node, scheduling)
    }
    changelist = reverse("admin:reminders_slackwebhook_changelist")
    _login(client, "node-lead", node, "lead")
    assert list(client.get(changelist).context["cl"].queryset) == [hooks["sig-node"]]
    assert client.get(reverse("admin:reminders_slackwebhook_change", args=[hooks["sig-node"].pk])).status_code == 200
    foreign = client.get(reverse("admin:reminders_slackwebhook_change", args=[hooks["sig-scheduling"].pk]))
    assert foreign.status_code in (302, 404)
    client.logout()
    _login(client, "node-liaison", node, "liaison")
    assert client.get(changelist).status_code == 403
