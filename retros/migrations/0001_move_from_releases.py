"""The retros app's models, moved from the releases app with their tables, which keep their names (`db_table`), so
no row moves.

The tables were made by releases' own migrations, which every database has run before this one (the dependency says
so): this migration records the models in the retros app's state only, and releases 0016 takes them out of that
app's state. The content types of the two models are renamed to the retros app, so their permissions (and the role
groups holding them) and the admin's log entries follow; on a database that has none yet (a new one) there is
nothing to rename.
"""

import django.db.models.deletion
from django.db import migrations, models

#: The moved models; their old app label is "releases", the new one "retros".
MOVED = ["retrospective", "retroitem"]


def _relabel(apps, schema_editor, *, old: str, new: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    taken = set(content_type.objects.using(db).filter(app_label=new, model__in=MOVED).values_list("model", flat=True))
    # Where both labels exist (a migrate that already saw the new models), the old row is left as it is.
    content_type.objects.using(db).filter(app_label=old, model__in=set(MOVED) - taken).update(app_label=new)


def content_types_to_retros(apps, schema_editor):
    _relabel(apps, schema_editor, old="releases", new="retros")


def content_types_back(apps, schema_editor):
    _relabel(apps, schema_editor, old="retros", new="releases")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("community", "0002_content_types"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("releases", "0015_stats_without_enhancements_freeze_recomputed"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Retrospective',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('date', models.DateField(blank=True, null=True)),
                        ('source_url', models.URLField(blank=True)),
                        ('summary', models.TextField(blank=True)),
                        ('recorded_tracked', models.PositiveIntegerField(blank=True, null=True)),
                        ('recorded_merged', models.PositiveIntegerField(blank=True, null=True)),
                        ('release', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='retrospectives', to='releases.release')),
                        ('sig', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='retrospectives', to='community.sig')),
                    ],
                    options={
                        'db_table': 'releases_retrospective',
                        'ordering': ['release__major', 'release__minor', 'sig__slug'],
                    },
                ),
                migrations.CreateModel(
                    name='RetroItem',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('category', models.CharField(choices=[('went_well', 'Went well'), ('to_improve', 'To improve'), ('action_item', 'Action item')], max_length=20)),
                        ('order', models.PositiveIntegerField(default=0)),
                        ('text', models.TextField()),
                        ('status', models.CharField(blank=True, choices=[('open', 'Open'), ('in_progress', 'In progress'), ('done', 'Done'), ('dropped', 'Dropped')], max_length=20)),
                        ('due_release', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='due_action_items', to='releases.release')),
                        ('owner', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='retro_items', to='community.person')),
                        ('retrospective', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='items', to='retros.retrospective')),
                    ],
                    options={
                        'db_table': 'releases_retroitem',
                        'ordering': ['retrospective', 'category', 'order', 'pk'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='retrospective',
                    constraint=models.UniqueConstraint(fields=('release', 'sig'), name='retro_unique_release_sig', violation_error_message='One retro each.'),
                ),
                migrations.AddConstraint(
                    model_name='retrospective',
                    constraint=models.CheckConstraint(condition=models.Q(('recorded_merged__isnull', True), ('recorded_tracked__isnull', True), ('recorded_merged__lte', models.F('recorded_tracked')), _connector='OR'), name='retro_merged_le_tracked', violation_error_message='More merged than tracked.'),
                ),
                migrations.AddConstraint(
                    model_name='retrospective',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('recorded_merged__isnull', True), ('recorded_tracked__isnull', True)), models.Q(('recorded_merged__isnull', False), ('recorded_tracked__isnull', False)), _connector='OR'), name='retro_tally_complete', violation_error_message='A recorded tally needs both tracked and merged.'),
                ),
                migrations.AddConstraint(
                    model_name='retroitem',
                    constraint=models.CheckConstraint(condition=models.Q(('category__in', ['went_well', 'to_improve', 'action_item'])), name='retroitem_category_valid', violation_error_message='Unknown category.'),
                ),
                migrations.AddConstraint(
                    model_name='retroitem',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('category', 'action_item'), ('status__in', ['open', 'in_progress', 'done', 'dropped'])), models.Q(models.Q(('category', 'action_item'), _negated=True), ('status', '')), _connector='OR'), name='retroitem_status_only_for_actions', violation_error_message='Action items need a status; other items have none.'),
                ),
            ],
            # The tables exist: releases 0001 made them, under these names, with these constraints.
            database_operations=[],
        ),
        migrations.RunPython(content_types_to_retros, content_types_back),
    ]
