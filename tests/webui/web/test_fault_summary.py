"""A game list names whose faults a game had, not only how many."""

from __future__ import annotations

from webui.web.reads import fault_summary
from webui.web.shapes import VersionRef

PLAYERS = [
    VersionRef(id=1, label="my-bot@2", bot="my-bot", number=2),
    VersionRef(id=2, label="greedy@1", bot="greedy", number=1),
]


def test_it_names_the_seat_and_the_kind_of_each_fault() -> None:
    faults = [{"deal": 0, "move": 3, "seat": 1, "kind": "timeout", "detail": "no answer"}]
    assert fault_summary(faults, PLAYERS) == "1 fault: greedy@1 timeout"


def test_it_counts_and_lists_several() -> None:
    faults = [
        {"seat": 0, "kind": "illegal"},
        {"seat": 1, "kind": "timeout"},
    ]
    assert fault_summary(faults, PLAYERS) == "2 faults: my-bot@2 illegal, greedy@1 timeout"


def test_it_is_empty_without_faults_and_names_an_unknown_seat_by_number() -> None:
    assert fault_summary([], PLAYERS) == ""
    assert fault_summary(None, PLAYERS) == ""
    assert fault_summary([{"seat": 5, "kind": "crash"}], PLAYERS) == "1 fault: seat 5 crash"
