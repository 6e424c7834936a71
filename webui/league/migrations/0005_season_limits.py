from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("league", "0004_formats"),
    ]

    operations = [
        migrations.AddField(
            model_name="season",
            name="limits",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
