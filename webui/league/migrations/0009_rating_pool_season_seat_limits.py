"""Names in Python only: ``Rating.ladder`` is ``Rating.pool`` (a rating pool, not the continuous
ladder) and ``Season.limits`` is ``Season.seat_limits``; their columns keep their names
(``db_column``), so the database does not change at all."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("league", "0008_variant_label"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveIndex(model_name="rating", name="rating_ladder_board"),
                migrations.AlterField(
                    model_name="rating",
                    name="ladder",
                    field=models.CharField(
                        choices=[("solo", "each side one bot"),
                                 ("partners", "rotating partnerships"),
                                 ("ladder", "the continuous ladder")],
                        db_column="ladder", default="solo", max_length=10),
                ),
                migrations.RenameField(model_name="rating", old_name="ladder", new_name="pool"),
                migrations.AddIndex(
                    model_name="rating",
                    index=models.Index(fields=["variant", "pool", "-conservative"],
                                       name="rating_ladder_board"),
                ),
                migrations.AlterField(
                    model_name="season",
                    name="limits",
                    field=models.JSONField(blank=True, db_column="limits", default=dict),
                ),
                migrations.RenameField(model_name="season", old_name="limits",
                                       new_name="seat_limits"),
            ],
        ),
    ]
