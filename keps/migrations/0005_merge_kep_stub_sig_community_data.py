"""Joins the two 0004 migrations written in parallel (Kep.is_stub and the sigs.yaml data)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("keps", "0004_kep_stub"),
        ("keps", "0004_sig_community_data"),
    ]

    operations = []
