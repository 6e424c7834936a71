"""What ``arena match`` prints for people: the match's header line and its table of results
(with ``--sprt`` too)."""

from __future__ import annotations

from typing import Any

from arena.commands import shown


def print_header(spec: Any, has_sandbox: bool) -> None:
    """The bots, the variant, the clocks and the sandbox, in one line on stderr."""
    from rich.console import Console

    console = Console(stderr=True)
    names = " vs ".join(bot.label for bot in spec.entrants)
    if not spec.sandbox:
        where = "[bold red]no sandbox (--unsafe-no-sandbox)[/]"
    elif has_sandbox:
        where = "bubblewrap sandbox"
    else:
        where = "[yellow]no bubblewrap: the sample bots run with limits only[/]"
    clocks = f"{spec.move_time_ms} ms/move + {spec.bank_ms} ms bank"
    console.print(f"[bold]{shown(names)}[/], {spec.variant}, {clocks}; {where}")


def print_table(report: Any) -> None:
    """Each entrant's games, results, points, faults and score, the Elo estimate, void
    games and every fault, on stdout."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    lines = report.summary()
    seen = [line.label for line in lines]
    for line in lines:  # the same bot twice: tell the entrants apart by their order
        if seen.count(line.label) > 1:
            line.label = f"{line.label} #{line.entrant + 1}"
    for line in lines:  # a label may be what a bot said of itself (Describe)
        line.label = shown(line.label)
    table = Table(title=f"{report.rules.variant}, seed {report.seed}", title_justify="left")
    table.add_column("bot", no_wrap=True)
    for column in ("games", "W", "L", "D", "points", "scope", "faults", "score"):
        table.add_column(column, justify="right", no_wrap=True)
    for line in lines:
        estimate = line.elo()
        table.add_row(
            line.label,
            str(line.games),
            str(line.wins),
            str(line.losses),
            str(line.draws),
            str(line.points),
            str(line.scope),
            str(line.faults),
            f"{100 * estimate.score:.1f}%",
        )
    console.print(table)
    if len(lines) == 2:
        first = lines[0]
        console.print(f"{first.label} vs {lines[1].label}:", highlight=False)
        console.print(first.elo().describe(), highlight=False)
    else:
        for line in lines:
            console.print(f"{line.label} vs the field: {line.elo().describe()}", highlight=False)
    voids = [game for game in report.games if game.void is not None]
    if voids:
        console.print(f"[yellow]{len(voids)} void games (the arena failed, counted for nobody)")
    for game in report.games:
        for fault in game.faults:
            label = shown(report.labels[game.seats[fault["seat"]]])
            console.print(
                f"game {game.index + 1}, seat {fault['seat']} ({label}): "
                f"[bold]{shown(fault['kind'])}[/] {shown(fault['detail'])}",
                markup=True,
                highlight=False,
            )
        if game.void is not None:
            console.print(f"game {game.index + 1}: void: {shown(game.void)}", highlight=False)
    if report.spec.replays_dir is not None:
        console.print(f"replays in {shown(str(report.spec.replays_dir))}/ (bot logs in its logs/)")
