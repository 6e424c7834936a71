"""Season formats beyond the two-side round-robin: pure schedules, pairings and tables.

One module per format, each pure (no database, no clock, no random number generator), typed,
and working on entrant numbers ``1..n`` like :mod:`arena.scheduling`:

- :mod:`arena.formats.placement`: the places of a game with three or more sides, placement
  points (2-1-0 for three sides, ties shared) and the table of a multi-side season;
- :mod:`arena.formats.triples`: three-seat tables in which every pair of entrants meets
  equally often (every triple, or a balanced incomplete design for large fields), in rounds;
- :mod:`arena.formats.swiss`: Swiss pairing by maximum weight matching, byes, Buchholz and
  Sonneborn-Berger;
- :mod:`arena.formats.whist`: whist tournaments, the rotating partnerships of four-player
  partnership variants.

The league (``webui.league.formats``) maps numbers to bot versions, stores the rounds and
plays them; nothing here knows of it.
"""

from __future__ import annotations

from .placement import PlacedGame, place_points, placement_standings, places_of
from .swiss import SwissPlayer, SwissRound, default_swiss_rounds, pair_swiss_round, swiss_standings
from .triples import TableRound, table_design, table_rounds
from .whist import WHIST_SIZES, WhistRound, whist_rounds

__all__ = [
    "WHIST_SIZES",
    "PlacedGame",
    "SwissPlayer",
    "SwissRound",
    "TableRound",
    "WhistRound",
    "default_swiss_rounds",
    "pair_swiss_round",
    "place_points",
    "placement_standings",
    "places_of",
    "swiss_standings",
    "table_design",
    "table_rounds",
    "whist_rounds",
]
