"""Relations to SIGs and people point at `community` (state only: same tables, see community/0001)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('community', '0001_move_to_community'),
        ('releases', '0009_tracking_board'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='featuresheetrow',
                    name='sig',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='feature_sheet_rows', to='community.sig'),
                ),
                migrations.AlterField(
                    model_name='milestone',
                    name='sig',
                    field=models.ForeignKey(blank=True, help_text='For SIG freezes.', null=True, on_delete=django.db.models.deletion.CASCADE, related_name='milestones', to='community.sig'),
                ),
                migrations.AlterField(
                    model_name='releasestats',
                    name='sig',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='release_stats', to='community.sig'),
                ),
                migrations.AlterField(
                    model_name='releaseteammember',
                    name='person',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='release_roles', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='reminderdelivery',
                    name='person',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='community.person'),
                ),
                migrations.AlterField(
                    model_name='retroitem',
                    name='owner',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='retro_items', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='retrospective',
                    name='sig',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='retrospectives', to='community.sig'),
                ),
                migrations.AlterField(
                    model_name='trackedenhancement',
                    name='assignee',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='assigned', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='trackedenhancement',
                    name='enhancements_contact',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='contact_for', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='trackedenhancement',
                    name='prr_approver',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='prr_reviews', to='community.person', verbose_name='PRR approver'),
                ),
                migrations.AlterField(
                    model_name='trackedenhancement',
                    name='sig',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='tracked_enhancements', to='community.sig'),
                ),
            ],
            database_operations=[],
        ),
    ]
