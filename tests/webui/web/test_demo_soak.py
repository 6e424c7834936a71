"""The demo ten minutes after its season, as a visitor finds it (``scripts/test --soak``: it
waits that long, so the suite runs it only when asked).

``arena demo`` with its defaults (its three sample bots, its pause between house matches): once
its season is over the test watches ``/api/tv`` for ten minutes, and each minute of them must
have featured a ladder match being played; then the home page's "Now playing" card, in
Chromium on a phone and a laptop, light and dark, shows one. The same mechanism at a pace the
suite can wait for is ``test_demo_keeps_playing.py``.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
from test_demo import Demo, fresh_env
from test_demo_keeps_playing import api, home_showing_a_match, shoot

from webui.serving import free_port

pytestmark = [pytest.mark.soak, pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(2400)]

AFTER_SEASON_S = 600.0
POLL_S = 5.0


def test_ten_minutes_after_its_season_the_demo_features_a_live_ladder_game(
    tmp_path: Path, browser: Any, artifacts: Path
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    demo = Demo(["--port", str(port)], fresh_env(tmp_path / "data"))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    try:
        demo.wait_for("Demo season 1 is over", timeout=900)
        over = time.monotonic()
        season = api(base, "/api/seasons/1")
        assert season["season"]["status"] == "finished", season
        season_matches = {m["id"] for m in season.get("matches", [])}

        featured: dict[int, set[int]] = {}  # minute after the season -> ladder matches seen
        while (elapsed := time.monotonic() - over) < AFTER_SEASON_S:
            tv = api(base, "/api/tv")
            if tv["match"] is not None:
                assert tv["kind"] == "ladder", tv
                assert tv["match"] not in season_matches, tv
                featured.setdefault(int(elapsed // 60), set()).add(tv["match"])
            time.sleep(POLL_S)
        quiet = [minute for minute in range(int(AFTER_SEASON_S // 60)) if minute not in featured]
        assert quiet == [], f"minutes after the season with no live game: {quiet}\n{demo.text}"
        matches = set().union(*featured.values())
        assert len(matches) >= 10, matches  # the ladder kept playing, not one long match

        tab = home_showing_a_match(context, base, demo, errors)
        assert "Ladder match" in tab.locator("#now-playing [data-tv='about']").inner_text()
        shoot(tab, artifacts, "demo-home-ten-minutes-after", "#now-playing [data-tv='title']")
        assert not errors, errors

        assert demo.stop(signal.SIGINT) == 0, demo.text
        assert "Traceback" not in demo.text, demo.text
    finally:
        context.close()
        demo.kill()
