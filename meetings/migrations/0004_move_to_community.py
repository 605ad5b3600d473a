"""Relations to SIGs and people point at `community` (state only: same tables, see community/0001)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('community', '0001_move_to_community'),
        ('meetings', '0003_agendaitem_stored_search_vector'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='agendaitem',
                    name='presenters',
                    field=models.ManyToManyField(blank=True, related_name='agenda_items', to='community.person'),
                ),
                migrations.AlterField(
                    model_name='meeting',
                    name='sig',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='meetings', to='community.sig'),
                ),
            ],
            database_operations=[],
        ),
    ]
