"""The migration that moved the formats' three Season columns into ``Season.format_options``
(``league.0012_format_options``), run forward and back on the suite's database."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("league", "0011_list_indexes")]
AFTER = [("league", "0012_format_options")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    """Migrates to ``targets``; the historical models there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_format_s_columns_into_its_options_and_back() -> None:
    old = migrate(BEFORE)
    try:
        variant = old.get_model("league", "Variant").objects.create(
            slug="scopa", name="scopa", label="scopa"
        )
        seasons = old.get_model("league", "Season").objects
        seasons.create(
            name="ko",
            variant=variant,
            format="round-robin+knockout",
            knockout_size=4,
            double_round_robin=True,
        )
        seasons.create(name="rr", variant=variant, format="round-robin")
        seasons.create(name="sw", variant=variant, format="swiss", swiss_rounds=5)
        seasons.create(name="tb", variant=variant, format="tables")

        new = migrate(AFTER)
        moved = dict(
            new.get_model("league", "Season").objects.values_list("name", "format_options")
        )
        assert moved == {
            "ko": {"knockout_size": 4, "double_round_robin": True},
            "rr": {"knockout_size": 0, "double_round_robin": False},
            "sw": {"rounds": 5},
            "tb": {},
        }

        back = migrate(BEFORE)
        rows = back.get_model("league", "Season").objects.values_list(
            "name", "knockout_size", "double_round_robin", "swiss_rounds"
        )
        assert sorted(rows) == [
            ("ko", 4, True, 0),
            ("rr", 0, False, 0),
            ("sw", 0, False, 5),
            ("tb", 0, False, 0),
        ]
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
