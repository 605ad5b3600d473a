"""Tracked enhancements without a KEP: the features of early feature sheets that name no features issue."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("keps", "0007_move_to_community"),
        ("releases", "0010_move_to_community"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="trackedenhancement",
            options={
                "ordering": [
                    "release__major",
                    "release__minor",
                    models.OrderBy(models.F("kep__number"), nulls_last=True),
                    "feature_name",
                ]
            },
        ),
        migrations.RemoveConstraint(
            model_name="trackedenhancement",
            name="trackedenh_unique_release_kep",
        ),
        migrations.AddField(
            model_name="trackedenhancement",
            name="feature_name",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="The feature sheet's name for a feature with no KEP.",
                max_length=300,
            ),
        ),
        migrations.AlterField(
            model_name="trackedenhancement",
            name="kep",
            field=models.ForeignKey(
                blank=True,
                help_text="Empty for a feature of an early feature sheet that names no KEP.",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="tracked_enhancements",
                to="keps.kep",
            ),
        ),
        migrations.AddConstraint(
            model_name="trackedenhancement",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kep__isnull", False)),
                fields=("release", "kep"),
                name="trackedenh_unique_release_kep",
                violation_error_message="This KEP is already tracked in this release.",
            ),
        ),
        migrations.AddConstraint(
            model_name="trackedenhancement",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kep__isnull", True)),
                fields=("release", "feature_name"),
                name="trackedenh_unique_release_feature",
                violation_error_message="A feature of this name is already tracked in this release.",
            ),
        ),
        migrations.AddConstraint(
            model_name="trackedenhancement",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("feature_name", ""), ("kep__isnull", False)),
                    models.Q(("kep__isnull", True), models.Q(("feature_name", ""), _negated=True)),
                    _connector="OR",
                ),
                name="trackedenh_names_kep_or_feature",
                violation_error_message="Name the KEP, or for a feature without one, the feature (not both).",
            ),
        ),
    ]
