"""SIGs, people, memberships, leaderships, SIG meetings and SIG aliases, moved from `keps` to `community`.

The tables keep their names (`keps_sig`, `keps_person`, ...), so no data moves: every operation here and in the
other apps' `move_to_community` migrations changes only Django's state (which app a model belongs to, what a
foreign key points at), never the database. A new database gets the tables from keps' earlier migrations, which
still create them; an existing one keeps them as they are. community/0002 moves the content types.
"""

import django.db.models.deletion
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("keps", "0006_kep_plan_history"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Sig',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('slug', models.SlugField(help_text='As in kubernetes/community, e.g. sig-node.', max_length=64, unique=True)),
                        ('name', models.CharField(blank=True, max_length=100)),
                        ('mailing_list', models.EmailField(blank=True, help_text='Where the freeze-reminder digest goes.', max_length=254)),
                        ('reminder_offsets', models.JSONField(blank=True, default=list, help_text='Hours before a freeze at which reminders go out, e.g. [336, 168, 48, 24, 0]; empty: default.')),
                        ('kind', models.CharField(choices=[('sig', 'SIG'), ('wg', 'Working group'), ('committee', 'Committee'), ('ug', 'User group')], default='sig', max_length=20)),
                        ('label', models.CharField(blank=True, help_text='GitHub label suffix: sig/<label>, e.g. node.', max_length=64)),
                        ('mission', models.TextField(blank=True)),
                        ('mailing_list_url', models.URLField(blank=True, help_text="The Google group's page.", max_length=300)),
                        ('slack_channel', models.CharField(blank=True, max_length=100)),
                        ('in_community', models.BooleanField(default=False, help_text="Listed in kubernetes/community's sigs.yaml (not only named in a kep.yaml).")),
                    ],
                    options={
                        'verbose_name': 'SIG',
                        'verbose_name_plural': 'SIGs',
                        'db_table': 'keps_sig',
                        'ordering': ['slug'],
                    },
                ),
                migrations.CreateModel(
                    name='Person',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('github', models.CharField(help_text='GitHub handle without the @.', max_length=64)),
                        ('name', models.CharField(blank=True, max_length=200)),
                        ('email', models.EmailField(blank=True, max_length=254)),
                        ('reminders_opt_out', models.BooleanField(default=False, help_text='Send this person no reminder emails.')),
                    ],
                    options={
                        'verbose_name_plural': 'people',
                        'db_table': 'keps_person',
                        'ordering': [django.db.models.functions.text.Lower('github')],
                        'constraints': [models.UniqueConstraint(django.db.models.functions.text.Lower('github'), name='person_github_unique_ci', violation_error_message='That GitHub handle exists.'), models.CheckConstraint(condition=models.Q(('github', ''), _negated=True), name='person_github_not_empty', violation_error_message='Handle needed.')],
                    },
                ),
                migrations.CreateModel(
                    name='SigAlias',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('spelling', models.CharField(help_text='As written in kep.yaml, lower case.', max_length=100, unique=True)),
                        ('sig_slug', models.CharField(blank=True, help_text='The SIG it means; empty: no SIG.', max_length=64)),
                        ('note', models.CharField(blank=True, max_length=300)),
                    ],
                    options={
                        'verbose_name': 'SIG alias',
                        'verbose_name_plural': 'SIG aliases',
                        'db_table': 'keps_sigalias',
                        'ordering': ['spelling'],
                        'constraints': [models.CheckConstraint(condition=models.Q(('spelling', django.db.models.functions.text.Lower('spelling')), models.Q(('spelling', ''), _negated=True)), name='sigalias_spelling_lower', violation_error_message='Write the spelling in lower case.')],
                    },
                ),
                migrations.CreateModel(
                    name='SigLeadership',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('role', models.CharField(choices=[('chair', 'SIG chair'), ('tech_lead', 'tech lead')], max_length=20)),
                        ('person', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sig_leaderships', to='community.person')),
                        ('sig', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='leaderships', to='community.sig')),
                    ],
                    options={
                        'verbose_name': 'SIG leader',
                        'db_table': 'keps_sigleadership',
                        'ordering': ['sig__slug', 'role', 'person__github'],
                        'constraints': [models.UniqueConstraint(fields=('sig', 'person', 'role'), name='sigleadership_unique', violation_error_message='Listed twice.'), models.CheckConstraint(condition=models.Q(('role__in', ['chair', 'tech_lead'])), name='sigleadership_role_valid', violation_error_message='Unknown role.')],
                    },
                ),
                migrations.CreateModel(
                    name='SigMeeting',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('position', models.PositiveSmallIntegerField(default=0, help_text='Order in sigs.yaml.')),
                        ('description', models.CharField(blank=True, max_length=300)),
                        ('day', models.PositiveSmallIntegerField(blank=True, choices=[(0, 'Monday'), (1, 'Tuesday'), (2, 'Wednesday'), (3, 'Thursday'), (4, 'Friday'), (5, 'Saturday'), (6, 'Sunday')], null=True)),
                        ('time', models.TimeField(blank=True, help_text='Local time in `tz`.', null=True)),
                        ('tz', models.CharField(blank=True, help_text='IANA zone, e.g. America/Los_Angeles.', max_length=64)),
                        ('frequency', models.CharField(blank=True, choices=[('weekly', 'Weekly'), ('biweekly', 'Every other week'), ('monthly', 'Monthly'), ('other', 'Other (see the note)')], max_length=20)),
                        ('week_of_month', models.SmallIntegerField(blank=True, help_text='Monthly meetings: 1-4 for first-fourth, -1 for last.', null=True)),
                        ('anchor_date', models.DateField(blank=True, help_text='A date it met, for every-other-week meetings.', null=True)),
                        ('frequency_note', models.CharField(blank=True, help_text="sigs.yaml's words.", max_length=300)),
                        ('url', models.URLField(blank=True, max_length=500)),
                        ('archive_url', models.URLField(blank=True, help_text='Meeting notes.', max_length=500)),
                        ('recordings_url', models.URLField(blank=True, max_length=500)),
                        ('sig', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='regular_meetings', to='community.sig')),
                    ],
                    options={
                        'verbose_name': 'SIG meeting',
                        'db_table': 'keps_sigmeeting',
                        'ordering': ['sig__slug', 'position'],
                        'constraints': [models.UniqueConstraint(fields=('sig', 'position'), name='sigmeeting_unique_position', violation_error_message='Same slot.'), models.CheckConstraint(condition=models.Q(('day__isnull', True), models.Q(('day__gte', 0), ('day__lte', 6)), _connector='OR'), name='sigmeeting_day_valid', violation_error_message='Day is 0 (Monday) to 6 (Sunday).'), models.CheckConstraint(condition=models.Q(('frequency__in', ['weekly', 'biweekly', 'monthly', 'other', ''])), name='sigmeeting_frequency_valid', violation_error_message='Unknown frequency.')],
                    },
                ),
                migrations.CreateModel(
                    name='SigMembership',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('role', models.CharField(choices=[('lead', 'SIG lead'), ('liaison', 'Release liaison / KEP wrangler'), ('viewer', 'Viewer')], max_length=20)),
                        ('sig', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='community.sig')),
                        ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sig_memberships', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'SIG membership',
                        'db_table': 'keps_sigmembership',
                        'ordering': ['sig__slug', 'user__username'],
                        'constraints': [models.UniqueConstraint(fields=('user', 'sig'), name='sigmembership_unique', violation_error_message='Already a member.'), models.CheckConstraint(condition=models.Q(('role__in', ['lead', 'liaison', 'viewer'])), name='sigmembership_role_valid', violation_error_message='Unknown role.')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
