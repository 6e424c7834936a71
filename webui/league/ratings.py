"""Ratings: TrueSkill per variant, updated in result order by one writer, recomputed to the
same numbers, and read as leaderboards.

Two families of pools (:class:`~webui.league.models.Rating.Pool`): the seasons' (``solo``:
each side one bot, keys ``v:``; ``partners``: rotating partnerships, keys ``p:``) and the
continuous ladder's (``ladder``, keys ``l:``: ladder matches and rated challenges). The
variant's row is the lock: one writer per variant at a time. Each game gets the next
``rating_seq`` as it is rated, so :func:`recompute_ratings` replays the order exactly.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F, Max, Q

from arena import rating as trueskill_rating
from arena.engine import side_of_seat

from . import read_models
from .locks import retry_on_deadlock
from .models import BotVersion, Game, Match, Rating, RatingHistory, Variant


def _rated_game(game: Game, sides: int) -> trueskill_rating.RatedGame:
    per_side: list[list[int]] = [[] for _ in range(sides)]
    for seat, version_id in enumerate(game.players):
        per_side[side_of_seat(seat, sides)].append(int(version_id))
    # Two sides: the winner (a forfeit already names the other side). More: the full ranking,
    # the forfeiting side last and the others by their points.
    places = game.places(sides) if sides > 2 else None
    return trueskill_rating.RatedGame(
        sides=tuple(tuple(s) for s in per_side),
        winner=game.winner_side,
        ref=game.pk,
        places=places,
    )


def _store_entry(
    variant: Variant, entry: trueskill_rating.Entry, on_ladder: bool = False
) -> Rating:
    """Stores a computed entry; ``on_ladder``: in the continuous ladder's pool (its ``l:``
    key)."""
    key = trueskill_rating.ladder_key(entry.key) if on_ladder else entry.key
    rating, _ = Rating.objects.update_or_create(
        variant=variant,
        key=key,
        defaults={
            "version_id": trueskill_rating.key_version(key),
            "pool": trueskill_rating.key_pool(key),
            "mu": entry.mu,
            "sigma": entry.sigma,
            "conservative": entry.conservative,
            "games": entry.games,
            "wins": entry.wins,
            "draws": entry.draws,
            "losses": entry.losses,
        },
    )
    return rating


def _stored(variant: Variant, on_ladder: bool = False) -> trueskill_rating.Ratings:
    """The stored ratings of the seasons' pools (``v:``, ``p:``) or of the continuous
    ladder's (``l:``, computed as ``v:`` keys)."""
    stored = trueskill_rating.Ratings()
    ratings = Rating.objects.filter(variant=variant)
    if on_ladder:
        ratings = ratings.filter(pool=Rating.Pool.LADDER)
    else:
        ratings = ratings.exclude(pool=Rating.Pool.LADDER)
    for r in ratings:
        key = trueskill_rating.solo_key(r.key) if on_ladder else r.key
        stored.entries[key] = trueskill_rating.Entry(
            key, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses
        )
    return stored


RATED = Q(void="", match__rated=True)
"""The games that move ratings: not void, of a rated match (unrated challenges are not)."""


@retry_on_deadlock
def update_ratings(variant_id: int, batch: int = 500) -> int:
    """Rates the variant's unrated games in result order; one writer per variant at a time.

    The variant's row is the lock. Each game gets the next ``rating_seq`` as it is rated, so
    the order of rating is recorded and :func:`recompute_ratings` replays it exactly. Returns
    how many games were rated.
    """
    rated = 0
    while True:
        with transaction.atomic():
            variant = Variant.objects.select_for_update().get(pk=variant_id)
            pending = list(
                Game.objects.filter(RATED, variant=variant, rating_seq__isnull=True)
                .select_related("match")
                .order_by("match__finished", "match_id", "index")[:batch]
            )
            if not pending:
                return rated
            seq = Game.objects.filter(variant=variant).aggregate(s=Max("rating_seq"))["s"] or 0
            pools = {False: _stored(variant), True: _stored(variant, True)}
            changed_pools: set[str] = set()
            changed_versions: set[int] = set()
            for game in pending:
                seq += 1
                on_ladder = game.match.kind != Match.Kind.SEASON
                entries = pools[on_ladder].rate(_rated_game(game, variant.sides))
                Game.objects.filter(pk=game.pk, rating_seq__isnull=True).update(rating_seq=seq)
                for entry in entries:
                    rating = _store_entry(variant, entry, on_ladder)
                    changed_pools.add(rating.pool)
                    changed_versions.add(rating.version_id)
                    RatingHistory.objects.create(
                        rating=rating,
                        game=game,
                        seq=seq,
                        mu=entry.mu,
                        sigma=entry.sigma,
                        conservative=entry.conservative,
                    )
            _bump_ratings(variant.pk, changed_pools, changed_versions)
            rated += len(pending)


def _bump_ratings(variant_id: int, pools: set[str], version_ids: set[int]) -> None:
    """Last in a rating transaction: the leaderboards, bots and home page it changed."""
    bots = set(BotVersion.objects.filter(pk__in=version_ids).values_list("bot_id", flat=True))
    read_models.bump(
        [
            read_models.HOME,
            *(read_models.board_scope(variant_id, pool) for pool in pools),
            *(read_models.bot_scope(bot) for bot in bots),
            # The ladders' pages show their leaderboards under this one scope (no variant to
            # look up before their kept copy is found).
            *([read_models.LADDER] if "ladder" in pools else []),
        ]
    )


def recompute_ratings(variant_id: int | None = None) -> dict[str, int]:
    """Rebuilds every rating (of one variant, or all) from the games in rating order.

    Games rated before keep their ``rating_seq``; games never rated are appended after them.
    The stored numbers are replaced by the recomputed ones, which equal the incremental ones.
    Returns the number of games rated per variant slug.
    """
    counts: dict[str, int] = {}
    variants = (
        Variant.objects.all() if variant_id is None else Variant.objects.filter(pk=variant_id)
    )
    for variant in variants:
        with transaction.atomic():
            variant = Variant.objects.select_for_update().get(pk=variant.pk)
            before = set(
                Rating.objects.filter(variant=variant).values_list("version_id", flat=True)
            )
            RatingHistory.objects.filter(rating__variant=variant).delete()
            Rating.objects.filter(variant=variant).delete()
            Game.objects.filter(variant=variant).exclude(void="").update(rating_seq=None)
            pools = {False: trueskill_rating.Ratings(), True: trueskill_rating.Ratings()}
            games = list(
                Game.objects.filter(RATED, variant=variant)
                .select_related("match")
                .order_by(
                    F("rating_seq").asc(nulls_last=True), "match__finished", "match_id", "index"
                )
            )
            history: list[tuple[Game, int, trueskill_rating.Entry, bool]] = []
            for seq, game in enumerate(games, start=1):
                on_ladder = game.match.kind != Match.Kind.SEASON
                for entry in pools[on_ladder].rate(_rated_game(game, variant.sides)):
                    history.append((game, seq, trueskill_rating.Entry(**vars(entry)), on_ladder))
                if game.rating_seq != seq:
                    Game.objects.filter(pk=game.pk).update(rating_seq=None)
            for seq, game in enumerate(games, start=1):
                if game.rating_seq != seq:
                    Game.objects.filter(pk=game.pk).update(rating_seq=seq)
            stored = {
                (key, scope): _store_entry(variant, entry, scope)
                for scope, pool in pools.items()
                for key, entry in pool.entries.items()
            }
            RatingHistory.objects.bulk_create(
                RatingHistory(
                    rating=stored[(entry.key, scope)],
                    game=game,
                    seq=seq,
                    mu=entry.mu,
                    sigma=entry.sigma,
                    conservative=entry.conservative,
                )
                for game, seq, entry, scope in history
            )
            _bump_ratings(
                variant.pk,
                set(Rating.Pool.values),
                {rating.version_id for rating in stored.values()} | before,
            )
            counts[variant.slug] = len(games)
    return counts


def leaderboard(variant: Variant, pool: str = Rating.Pool.SOLO) -> list[Rating]:
    """The variant's ratings in one pool, best conservative rating first."""
    return list(
        Rating.objects.filter(variant=variant, pool=pool)
        .select_related("version__bot")
        .order_by("-conservative", "key")
    )
