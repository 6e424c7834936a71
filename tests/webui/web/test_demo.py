"""``arena demo`` from a fresh environment (no database, no broker, an empty data folder): the
login first, the site at once while its season plays, and Ctrl-C or SIGTERM leaving nothing
behind. (``tests/test_quickstart.py`` runs it as the README's quick start does.)"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sqlite3
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from web_helpers import Streamed, descendants, process_table, still_running

from webui.serving import free_port

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow


def fresh_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_"))}
    env["ARENA_DATA_DIR"] = str(data_dir)
    env["ARENA_SANDBOX"] = "auto"
    # The bots' seat folders (and so their sandboxes' command lines) under a folder of this
    # test's: whatever outlives the demo is found by it, orphans included.
    env["TMPDIR"] = str(data_dir.parent / "tmp")
    Path(env["TMPDIR"]).mkdir(parents=True, exist_ok=True)
    return env


def left_behind(marker: Path) -> list[str]:
    """Every process on the machine whose command line names ``marker``."""
    return [command for _, _, command in process_table().values() if str(marker) in command]


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode()


class Demo(Streamed):
    """An ``arena demo`` process in a session of its own, its output read as it comes."""

    name = "the demo"

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        super().__init__([sys.executable, "-m", "arena.cli", "demo", *args], ROOT, env)

    @property
    def text(self) -> str:
        return self.output

    def wait_for(self, words: str, timeout: float = 240.0) -> str:
        return super().wait_for(words, timeout)

    def stop(self, sig: int) -> int:
        """Sends ``sig`` to the demo's process group, as a terminal's Ctrl-C (SIGINT) or a
        service manager (SIGTERM) does, and waits for it."""
        os.killpg(self.process.pid, sig)
        status = self.process.wait(timeout=120)  # a bound on a hang, not a measure
        self.reader.join(timeout=10)
        return status

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def live(base: str, season: int) -> dict[str, object]:
    return dict(json.loads(get(f"{base}/api/seasons/{season}/live")[1]))


def log_in(base: str, password: str, path: str = "/admin/login/") -> urllib.request.OpenerDirector:
    """A browser-like session logged in as the demo's account."""
    import http.cookiejar

    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    with opener.open(base + path, timeout=30) as response:
        form = response.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token, form
    data = urllib.parse.urlencode(
        {
            "csrfmiddlewaretoken": token.group(1),
            "username": "demo",
            "password": password,
            "next": "/admin/",
        }
    ).encode()
    with opener.open(base + path, data=data, timeout=30) as response:
        assert response.url == base + "/admin/", response.url
    return opener


def test_the_demo_serves_while_its_season_plays_and_ctrl_c_or_sigterm_leave_nothing(
    tmp_path: Path,
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data = tmp_path / "data"
    env = fresh_env(data)
    # ismcts thinks a quarter of a second a move: its one match lasts well over a minute.
    demo = Demo(["--bots", "greedy", "ismcts", "--port", str(port)], env)
    try:
        said = demo.wait_for("Serving the site at")
        found = re.search(r"Log in as demo / (\S+) at", said)
        assert found, said
        password = found.group(1)
        assert said.index("Log in as demo") < said.index("Demo season 1: 0 of 1 matches")
        # The site answers while its season still plays.
        status, page = get(f"{base}/seasons/1/")
        assert status == 200 and "Demo season 1" in page and "data-live-url" in page
        assert live(base, 1)["status"] == "running"
        assert live(base, 1)["matches_done"] == 0
        admin = log_in(base, password)
        for path in ("/admin/", "/admin/league/season/", "/admin/auth/user/"):
            with admin.open(base + path, timeout=30) as response:
                assert response.status == 200, path
                assert "have permission to view or edit" not in response.read().decode()
        # Ctrl-C while the match is played, with its bots' processes running.
        deadline = time.monotonic() + 120
        while not live(base, 1)["playing"]:
            assert time.monotonic() < deadline, demo.text
            time.sleep(0.5)
        # Each game starts fresh bot processes: between two games there are none for an
        # instant, so look until a game's bots are there.
        while True:
            children = descendants(demo.process.pid)
            commands = [command for _, command in children.values()]
            if any("bwrap" in c or "bot.py" in c for c in commands):
                break
            assert time.monotonic() < deadline, (commands, demo.text)
            time.sleep(0.05)
        assert any("arena.cli worker" in c for c in commands), commands
        assert demo.stop(signal.SIGINT) == 0, demo.text
        assert still_running(children) == []
        assert left_behind(tmp_path) == []  # nor a bot started after that look (an orphan)
        assert demo.text.rstrip().endswith("stopped")
        assert "Traceback" not in demo.text, demo.text
        # A clean stop is no news: no warning (its killed runners' seat groups ended quietly).
        assert "WARNING" not in demo.text and "runner had died" not in demo.text, demo.text
    finally:
        demo.kill()
    # The match was cut, not waited for: nobody recorded it (it is played again later).
    with sqlite3.connect(data / "arena.sqlite3") as db:
        statuses = [row[0] for row in db.execute("SELECT status FROM league_match")]
    assert statuses == ["running"]

    # The next run prints the same login, and SIGTERM to its group leaves nothing either.
    demo = Demo(["--bots", "random", "greedy", "--port", str(port)], env)
    try:
        said = demo.wait_for("Serving the site at")
        assert f"Log in as demo / {password} at" in said
        assert "Demo season 2" in said
        status, _ = get(f"{base}/seasons/2/")
        assert status == 200
        children = descendants(demo.process.pid)
        assert demo.stop(signal.SIGTERM) == 0, demo.text
        assert still_running(children) == []
        assert left_behind(tmp_path) == []
        assert "Traceback" not in demo.text, demo.text
    finally:
        demo.kill()


REQUEST_LINE = re.compile(r'"(GET|POST|HEAD) /|HTTP/1\.[01]" \d{3}|Not Found')


def gone_after_sigkill(demo: Demo, marker: Path) -> list[str]:
    """SIGKILLs the demo process alone (not its group), as the OOM killer does, and returns
    what is still running of it once all of it is gone or a generous deadline passed: every
    process below it a moment before, and any whose command line names ``marker`` (a bot's
    sandbox started since). The deadline bounds leftovers; it does not measure speed."""
    children = descendants(demo.process.pid)
    assert children, "the demo started no process"
    os.kill(demo.process.pid, signal.SIGKILL)
    demo.process.wait(timeout=30)
    deadline = time.monotonic() + 60
    while True:
        left = still_running(children) + left_behind(marker)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.5)


def test_the_demo_terminal_shows_the_login_and_the_season_not_requests_and_a_sigkill_leaves_nothing(
    tmp_path: Path,
) -> None:
    """The terminal keeps what a newcomer needs (the login, each match as it is recorded,
    the standings); request lines and 404 warnings go to a log file it names once. Killed
    outright, the demo's workers, their pool processes and their fork servers go too."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    data = tmp_path / "data"
    demo = Demo(["--bots", "random", "greedy", "--port", str(port)], fresh_env(data))
    try:
        demo.wait_for("Serving the site at")
        for path in ("/", "/seasons/1/", "/ladder/", "/no-such-page/", "/favicon.ico"):
            try:
                get(base + path)
            except urllib.error.HTTPError as error:
                assert error.code == 404, path
        said = demo.wait_for("Demo season 1 is over")
        unwrapped = "".join(demo.text.split())  # the terminal wraps a long path anywhere
        log_file = data / "logs" / "demo.log"
        assert f"requestsandwarningsin{log_file}" in unwrapped, demo.text
        assert unwrapped.count(str(log_file)) == 1, demo.text  # said once, at the start
        assert "Log in as demo /" in said
        assert said.index("Log in as demo") < said.index("Demo season 1: 0 of 1 matches")
        # The match as it is recorded: who, games won, points; then the count.
        result = re.search(
            r"(greedy|random)@1 (\d)-(\d) (greedy|random)@1 \(games won; points \d+-\d+\)",
            said,
        )
        assert result and {result.group(1), result.group(4)} == {"greedy", "random"}, said
        assert int(result.group(2)) + int(result.group(3)) <= 2
        assert said.index("0 of 1 matches") < result.start() < said.index("1 of 1 matches")
        assert "greedy" in said.split("1 of 1 matches played", 1)[1]  # the standings
        assert REQUEST_LINE.search(demo.text) is None, demo.text
        assert "WARNING" not in demo.text and "Traceback" not in demo.text, demo.text
        logged = log_file.read_text()
        assert '"GET /no-such-page/ HTTP/1.1" 404' in logged, logged[-3000:]
        assert "Not Found: /no-such-page/" in logged, logged[-3000:]

        commands = [command for _, command in descendants(demo.process.pid).values()]
        assert any("arena.cli worker" in c for c in commands), commands
        assert gone_after_sigkill(demo, tmp_path) == []
    finally:
        demo.kill()


def test_a_demo_killed_outright_mid_match_leaves_none_of_its_processes(tmp_path: Path) -> None:
    """SIGKILL of the demo alone while its bots play: its workers see their lifeline close
    and end all they started (pool processes, seats, sandboxes, fork servers), so nothing of
    it is left, whoever adopts the orphans."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    demo = Demo(["--bots", "greedy", "ismcts", "--port", str(port)], fresh_env(tmp_path / "data"))
    try:
        demo.wait_for("Serving the site at")
        deadline = time.monotonic() + 120
        while not live(base, 1)["playing"]:
            assert time.monotonic() < deadline, demo.text
            time.sleep(0.5)
        while True:  # a game's bots are running (between two games there are none)
            commands = [command for _, command in descendants(demo.process.pid).values()]
            if any("bwrap" in c or "bot.py" in c for c in commands):
                break
            assert time.monotonic() < deadline, (commands, demo.text)
            time.sleep(0.05)
        assert gone_after_sigkill(demo, tmp_path) == []
    finally:
        demo.kill()


def test_arena_password_gives_an_account_a_new_password_and_the_demo_prints_it(
    transactional_db: object,
    settings: object,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The operator's reset (no e-mail), and the demo's login that follows it."""
    from django.contrib.auth.models import User

    from arena.cli import main
    from webui.accounts import demo_login

    settings.ARENA_DATA_DIR = tmp_path  # type: ignore[attr-defined]
    first = demo_login()
    assert first.created and first.password and first.user.is_superuser
    saved = tmp_path / "demo-login"
    assert saved.read_text().strip() == first.password
    assert oct(saved.stat().st_mode & 0o777) == "0o600"
    again = demo_login()  # every run prints it again
    assert not again.created and again.password == first.password

    assert main(["password", "demo"]) == 0
    new = capsys.readouterr().out.split(": ", 1)[1].strip()
    assert len(new) >= 12 and new != first.password
    assert demo_login().password == new == saved.read_text().strip()
    assert main(["password", "nobody"]) == 2
    assert capsys.readouterr().err.strip() == "error: no account 'nobody'"
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    assert main(["password", "demo", "--stdin"]) == 2
    assert "at least 8 characters" in capsys.readouterr().err
    assert User.objects.get(username="demo").check_password(new)  # nothing changed

    # Changed on the site: the file no longer opens the account, and the demo says so.
    user = User.objects.get(username="demo")
    user.set_password("the owner's own")
    user.save()
    assert demo_login().password is None
    # A demo of before the file: a new password, printed.
    saved.unlink()
    older = demo_login()
    assert older.password and User.objects.get(username="demo").check_password(older.password)
