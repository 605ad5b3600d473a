"""SIG data from kubernetes/community's sigs.yaml (kind, label, mission, list, Slack, leaders, meetings) and the
alias table that maps kep.yaml spellings to those SIGs, seeded with the spellings found in kubernetes/enhancements.
"""

import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models


#: (spelling as written in kep.yaml, the SIG it means or "" for none, why). Literals: migrations replay history.
SEEDED_ALIASES = [
    ("sig-machinery", "sig-api-machinery", "typo in kep.yaml (keps/sig-scheduling/3521-pod-scheduling-readiness)"),
    ("sig-apimachinery", "sig-api-machinery", "typo in kep.yaml"),
    ("sig-scheduler", "sig-scheduling", "typo in kep.yaml (keps/sig-node/753-sidecar-containers)"),
    ("tbd", "", "placeholder in kep.yaml participating-sigs: no SIG"),
    ("sig-federation", "sig-multicluster", "SIG Federation became SIG Multicluster (2018)"),
    ("sig-cluster-federation", "sig-multicluster", "SIG Federation became SIG Multicluster (2018)"),
    ("sig-aws", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-azure", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-gcp", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-openstack", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-vmware", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-ibmcloud", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
]


def seed_aliases(apps, schema_editor):
    SigAlias = apps.get_model("keps", "SigAlias")
    for spelling, slug, note in SEEDED_ALIASES:
        SigAlias.objects.get_or_create(spelling=spelling, defaults={"sig_slug": slug, "note": note})


def unseed_aliases(apps, schema_editor):
    apps.get_model("keps", "SigAlias").objects.filter(spelling__in=[row[0] for row in SEEDED_ALIASES]).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('keps', '0003_role_groups'),
    ]

    operations = [
        migrations.AddField(
            model_name='sig',
            name='in_community',
            field=models.BooleanField(default=False, help_text="Listed in kubernetes/community's sigs.yaml (not only named in a kep.yaml)."),
        ),
        migrations.AddField(
            model_name='sig',
            name='kind',
            field=models.CharField(choices=[('sig', 'SIG'), ('wg', 'Working group'), ('committee', 'Committee'), ('ug', 'User group')], default='sig', max_length=20),
        ),
        migrations.AddField(
            model_name='sig',
            name='label',
            field=models.CharField(blank=True, help_text='GitHub label suffix: sig/<label>, e.g. node.', max_length=64),
        ),
        migrations.AddField(
            model_name='sig',
            name='mailing_list_url',
            field=models.URLField(blank=True, help_text="The Google group's page.", max_length=300),
        ),
        migrations.AddField(
            model_name='sig',
            name='mission',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='sig',
            name='slack_channel',
            field=models.CharField(blank=True, max_length=100),
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
                'ordering': ['spelling'],
                'constraints': [models.CheckConstraint(condition=models.Q(('spelling', django.db.models.functions.text.Lower('spelling')), models.Q(('spelling', ''), _negated=True)), name='sigalias_spelling_lower', violation_error_message='Write the spelling in lower case.')],
            },
        ),
        migrations.CreateModel(
            name='SigLeadership',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('role', models.CharField(choices=[('chair', 'SIG chair'), ('tech_lead', 'tech lead')], max_length=20)),
                ('person', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sig_leaderships', to='keps.person')),
                ('sig', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='leaderships', to='keps.sig')),
            ],
            options={
                'verbose_name': 'SIG leader',
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
                ('sig', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='regular_meetings', to='keps.sig')),
            ],
            options={
                'verbose_name': 'SIG meeting',
                'ordering': ['sig__slug', 'position'],
                'constraints': [models.UniqueConstraint(fields=('sig', 'position'), name='sigmeeting_unique_position', violation_error_message='Same slot.'), models.CheckConstraint(condition=models.Q(('day__isnull', True), models.Q(('day__gte', 0), ('day__lte', 6)), _connector='OR'), name='sigmeeting_day_valid', violation_error_message='Day is 0 (Monday) to 6 (Sunday).'), models.CheckConstraint(condition=models.Q(('frequency__in', ['weekly', 'biweekly', 'monthly', 'other', ''])), name='sigmeeting_frequency_valid', violation_error_message='Unknown frequency.')],
            },
        ),
        migrations.RunPython(seed_aliases, unseed_aliases),
    ]
