"""Test, then promote: a version keeps the hash of its unpacked code (identical code is named
at upload and in version tests) and whether its owner asked that it be promoted on an SPRT that
accepts H1. Versions stored before keep an empty hash (compared by the archive's only).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("league", "0013_game_logs")]

    operations = [
        migrations.AddField(
            model_name="botversion",
            name="code_sha256",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name="botversion",
            name="promote_on_pass",
            field=models.BooleanField(default=False),
        ),
    ]
