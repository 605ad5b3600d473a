"""The reminders' models, moved from the releases app (ReminderDelivery) and the people app (Unsubscription,
SlackWebhook) with their tables, which keep their names (`db_table`), so no row moves.

The tables were made by releases' and people's own migrations, which every database has run before this one (the
dependencies say so): this migration records the models in the reminders app's state only, and releases 0012 and
people 0005 take them out of those apps' state. The content types of the three models are renamed to the reminders
app, so their permissions (and the role groups holding them) and the admin's log entries follow; on a database
that has none yet (a new one) there is nothing to rename.
"""

import django.db.models.deletion
import django.db.models.functions.text
import django.utils.timezone
from django.db import migrations, models

#: (old app label, model) of each moved model; the new app label is "reminders".
MOVED = [("releases", "reminderdelivery"), ("people", "unsubscription"), ("people", "slackwebhook")]


def _relabel(apps, *, to_old: bool) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    for old, model in MOVED:
        source, target = ("reminders", old) if to_old else (old, "reminders")
        if ContentType.objects.filter(app_label=target, model=model).exists():
            # Already there (made by a migrate that saw the new models): leave both as they are.
            continue
        ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


def content_types_to_reminders(apps, schema_editor):
    _relabel(apps, to_old=False)


def content_types_back(apps, schema_editor):
    _relabel(apps, to_old=True)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("community", "0002_content_types"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("people", "0004_move_to_community"),
        ("releases", "0011_kepless_tracked_enhancements"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Unsubscription',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('address', models.EmailField(help_text='Stored in lower case.', max_length=254)),
                        ('kind', models.CharField(choices=[('digest', 'SIG digest'), ('personal', 'Personal note')], max_length=20)),
                        ('at', models.DateTimeField(default=django.utils.timezone.now)),
                    ],
                    options={
                        'db_table': 'people_unsubscription',
                        'ordering': ['-at'],
                        'constraints': [models.UniqueConstraint(django.db.models.functions.text.Lower('address'), models.F('kind'), name='unsubscription_once_per_address_kind', violation_error_message='This address is already unsubscribed from these reminders.'), models.CheckConstraint(condition=models.Q(('kind__in', ['digest', 'personal'])), name='unsubscription_kind_valid', violation_error_message='Unknown kind of reminder.')],
                    },
                ),
                migrations.CreateModel(
                    name='ReminderDelivery',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('anchor', models.CharField(choices=[('freeze', 'Before the freeze'), ('exception_close', 'Before the exception window closes'), ('exception_deadline', "Before an exception request's deadline")], default='freeze', max_length=20)),
                        ('offset_hours', models.IntegerField(help_text='Hours before the anchor; 0 is the moment itself.')),
                        ('kind', models.CharField(choices=[('digest', 'SIG digest'), ('personal', 'Personal note')], max_length=20)),
                        ('recipient', models.EmailField(max_length=254)),
                        ('state', models.CharField(choices=[('claimed', 'Claimed (sending)'), ('sent', 'Sent'), ('failed', 'Failed'), ('skipped', 'Skipped')], default='claimed', max_length=20)),
                        ('due_at', models.DateTimeField()),
                        ('claimed_at', models.DateTimeField(blank=True, null=True)),
                        ('sent_at', models.DateTimeField(blank=True, null=True)),
                        ('attempts', models.PositiveIntegerField(default=0)),
                        ('message_id', models.CharField(blank=True, max_length=200)),
                        ('error', models.TextField(blank=True)),
                        ('retry_at', models.DateTimeField(blank=True, null=True)),
                        ('refusals', models.PositiveIntegerField(default=0)),
                        ('milestone', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reminder_deliveries', to='releases.milestone')),
                        ('person', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='community.person')),
                    ],
                    options={
                        'verbose_name_plural': 'reminder deliveries',
                        'db_table': 'releases_reminderdelivery',
                        'ordering': ['-due_at', 'recipient'],
                        'constraints': [models.UniqueConstraint(fields=('milestone', 'anchor', 'offset_hours', 'kind', 'recipient'), name='delivery_once_per_recipient', violation_error_message='This reminder was already sent to this recipient.'), models.CheckConstraint(condition=models.Q(('state__in', ['claimed', 'sent', 'failed', 'skipped'])), name='delivery_state_valid', violation_error_message='Unknown state.')],
                    },
                ),
                migrations.CreateModel(
                    name='SlackWebhook',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('url_encrypted', models.TextField(editable=False)),
                        ('url_hint', models.CharField(editable=False, help_text='Host and last four characters.', max_length=200)),
                        ('channel', models.CharField(blank=True, help_text='For people: the channel it posts to.', max_length=100)),
                        ('enabled', models.BooleanField(default=True)),
                        ('disabled_reason', models.TextField(blank=True)),
                        ('disabled_at', models.DateTimeField(blank=True, null=True)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('sig', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='slack_webhook', to='community.sig')),
                    ],
                    options={
                        'verbose_name': 'Slack webhook',
                        'db_table': 'people_slackwebhook',
                        'ordering': ['sig'],
                        'constraints': [models.CheckConstraint(condition=models.Q(('enabled', True), models.Q(('disabled_reason', ''), _negated=True), _connector='OR'), name='slack_webhook_disabled_with_reason', violation_error_message='A disabled Slack webhook says why.')],
                    },
                ),
            ],
            # The tables exist: releases 0001 and people 0001/0002 made them, under these names.
            database_operations=[],
        ),
        migrations.RunPython(content_types_to_reminders, content_types_back),
    ]
