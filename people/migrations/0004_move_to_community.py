"""Relations to SIGs and people point at `community` (state only: same tables, see community/0001)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('community', '0001_move_to_community'),
        ('people', '0003_profile_github_id'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='preferencechange',
                    name='person',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='profile',
                    name='person',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='profile', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='slackwebhook',
                    name='sig',
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='slack_webhook', to='community.sig'),
                ),
            ],
            database_operations=[],
        ),
    ]
