"""The KEP models' relations to SIGs and people point at `community` (state only: same tables, same columns),
and the moved models leave keps' state (see community/migrations/0001_move_to_community.py)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('community', '0001_move_to_community'),
        ('keps', '0006_kep_plan_history'),
        ('meetings', '0004_move_to_community'),
        ('people', '0004_move_to_community'),
        ('releases', '0010_move_to_community'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='prrapproval',
                    name='approver',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='prr_approvals', to='community.person'),
                ),
                migrations.RemoveField(
                    model_name='sigleadership',
                    name='person',
                ),
                migrations.RemoveField(
                    model_name='sigmeeting',
                    name='sig',
                ),
                migrations.RemoveField(
                    model_name='sigleadership',
                    name='sig',
                ),
                migrations.RemoveField(
                    model_name='sigmembership',
                    name='sig',
                ),
                migrations.AlterField(
                    model_name='kep',
                    name='owning_sig',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='owned_keps', to='community.sig'),
                ),
                migrations.DeleteModel(
                    name='SigAlias',
                ),
                migrations.RemoveField(
                    model_name='sigmembership',
                    name='user',
                ),
                migrations.AlterField(
                    model_name='designgroup',
                    name='sigs',
                    field=models.ManyToManyField(blank=True, related_name='design_groups', to='community.sig'),
                ),
                migrations.AlterField(
                    model_name='kep',
                    name='approvers',
                    field=models.ManyToManyField(blank=True, related_name='approved_keps', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='kep',
                    name='authors',
                    field=models.ManyToManyField(blank=True, related_name='authored_keps', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='kep',
                    name='participating_sigs',
                    field=models.ManyToManyField(blank=True, related_name='participating_keps', to='community.sig'),
                ),
                migrations.AlterField(
                    model_name='kep',
                    name='reviewers',
                    field=models.ManyToManyField(blank=True, related_name='reviewed_keps', to='community.person'),
                ),
                migrations.DeleteModel(
                    name='Person',
                ),
                migrations.DeleteModel(
                    name='SigMeeting',
                ),
                migrations.DeleteModel(
                    name='SigLeadership',
                ),
                migrations.DeleteModel(
                    name='Sig',
                ),
                migrations.DeleteModel(
                    name='SigMembership',
                ),
            ],
            database_operations=[],
        ),
    ]
