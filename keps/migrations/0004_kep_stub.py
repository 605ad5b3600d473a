from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("keps", "0003_role_groups"),
    ]

    operations = [
        migrations.AddField(
            model_name="kep",
            name="is_stub",
            field=models.BooleanField(
                default=False,
                help_text="Made by sync_github from the tracking issue; import_keps replaces it with the kep.yaml.",
            ),
        ),
    ]
