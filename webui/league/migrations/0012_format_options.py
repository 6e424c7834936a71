"""Each season's format options move from three columns into ``Season.format_options`` (JSON),
and the format's choices are read from the registry.

The columns' meaning is the formats' as they were when this was written: a round-robin's
``knockout_size`` and ``double_round_robin``, a Swiss's number of rounds (``swiss_rounds``).
"""

from typing import Any

from django.db import migrations, models

import webui.league.models

ROUND_ROBINS = ("round-robin", "round-robin+knockout")


def columns_to_options(apps: Any, schema_editor: Any) -> None:
    Season = apps.get_model("league", "Season")
    for season in Season.objects.all().only(
        "format", "knockout_size", "double_round_robin", "swiss_rounds"
    ):
        if season.format in ROUND_ROBINS:
            options = {
                "knockout_size": season.knockout_size,
                "double_round_robin": season.double_round_robin,
            }
        elif season.format == "swiss":
            options = {"rounds": season.swiss_rounds}
        else:
            options = {}
        Season.objects.filter(pk=season.pk).update(format_options=options)


def options_to_columns(apps: Any, schema_editor: Any) -> None:
    Season = apps.get_model("league", "Season")
    for season in Season.objects.all().only("format", "format_options"):
        options = season.format_options or {}
        Season.objects.filter(pk=season.pk).update(
            knockout_size=int(options.get("knockout_size") or 0),
            double_round_robin=bool(options.get("double_round_robin")),
            swiss_rounds=int(options.get("rounds") or 0),
        )


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0011_list_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="season",
            name="format_options",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(columns_to_options, options_to_columns),
        migrations.RemoveField(model_name="season", name="knockout_size"),
        migrations.RemoveField(model_name="season", name="swiss_rounds"),
        migrations.RemoveField(model_name="season", name="double_round_robin"),
        migrations.AlterField(
            model_name="season",
            name="format",
            field=models.CharField(
                choices=webui.league.models.season_formats, default="round-robin", max_length=24
            ),
        ),
    ]
