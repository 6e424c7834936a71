"""Season formats (Swiss, tables, rotating partnerships) and the partner ladder of ratings.

A side of two different bot versions used to be rated as one team entity (``t:<id>+<id>``);
it is now rated as two partners on the ``partners`` ladder (``p:<id>`` each). The old team
ratings are removed here and the games behind them marked unrated, so the next rating run
(``arena.update_ratings``, which the sweep enqueues for unrated results) rates them again as
partners, after the games already rated.
"""

from typing import Any

from django.db import migrations, models


def drop_team_ratings(apps: Any, schema_editor: Any) -> None:
    Rating = apps.get_model("league", "Rating")
    Game = apps.get_model("league", "Game")
    Rating.objects.filter(key__startswith="t:").delete()
    mixed = []
    for game in Game.objects.filter(variant__players__gte=4).exclude(
        rating_seq__isnull=True
    ).only("id", "players", "variant__sides").select_related("variant").iterator():
        sides = int(game.variant.sides) or 2
        per_side = [set(game.players[s::sides]) for s in range(sides)]
        if any(len(side) > 1 for side in per_side):
            mixed.append(game.id)
    for start in range(0, len(mixed), 1000):
        Game.objects.filter(id__in=mixed[start:start + 1000]).update(rating_seq=None)


class Migration(migrations.Migration):

    dependencies = [
        ('league', '0003_botarchive'),
    ]

    operations = [
        migrations.RunPython(drop_team_ratings, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='rating',
            name='partner',
        ),
        migrations.AddField(
            model_name='rating',
            name='ladder',
            field=models.CharField(choices=[('solo', 'each side one bot'), ('partners', 'rotating partnerships')], default='solo', max_length=10),
        ),
        migrations.AddIndex(
            model_name='rating',
            index=models.Index(fields=['variant', 'ladder', '-conservative'], name='rating_ladder_board'),
        ),
        migrations.AddField(
            model_name='season',
            name='swiss_rounds',
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name='season',
            name='format',
            field=models.CharField(choices=[('round-robin', 'round-robin'), ('round-robin+knockout', 'round-robin, then knockout'), ('swiss', 'Swiss'), ('tables', 'every pair at the same tables'), ('partnerships', 'rotating partnerships')], default='round-robin', max_length=24),
        ),
    ]
