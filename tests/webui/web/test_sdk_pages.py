"""What a bot author takes from the site without a checkout: the SDK's wheel under /sdk/, the
starter kit whose README installs it from this site, the data set page with this site's
download command, and the export button on a bot's page."""

from __future__ import annotations

import gzip
import io
import json
import re
import zipfile
from typing import Any

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def hosts(settings: Any) -> None:
    """Sites under other names than the tests' own, so their pages show those names."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "arena.test", "games.example.net"]


def wheel_name(page: str) -> str:
    found = re.search(r'href="/sdk/(scopa_arena_sdk-[^"]+\.whl)"', page)
    assert found, page
    return found.group(1)


def test_the_site_serves_the_sdk_wheel_under_sdk(client: Any) -> None:
    page = client.get("/sdk/", HTTP_HOST="arena.test:8123").content.decode()
    name = wheel_name(page)
    assert f"pip install http://arena.test:8123/sdk/{name}" in page
    response = client.get(f"/sdk/{name}")
    assert response.status_code == 200
    wheel = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert "arena/sdk/bot.py" in wheel.namelist()
    missing = client.get("/sdk/scopa_arena_sdk-0.0.1-py3-none-any.whl")
    assert missing.status_code == 404


def test_the_starter_kits_readme_installs_the_sdk_from_this_site(client: Any) -> None:
    name = wheel_name(client.get("/sdk/").content.decode())
    for lang, readme in (("python", "my-bot/README.md"), ("javascript", "my-bot/README.md")):
        response = client.get(f"/write-a-bot/starter-kit-{lang}.zip", HTTP_HOST="arena.test")
        text = zipfile.ZipFile(io.BytesIO(response.content)).read(readme).decode()
        assert f"pip install http://arena.test/sdk/{name}\n" in text
        assert "{{install}}" not in text
    page = client.get("/write-a-bot/", HTTP_HOST="arena.test").content.decode()
    assert f"pip install http://arena.test/sdk/{name}" in page and 'href="/data/"' in page


def test_the_data_set_page_shows_the_download_command_for_this_site(
    client: Any, users: dict[str, Any]
) -> None:
    from webui.league import variants

    variants.get_variant("scopone")  # a variant the league has
    page = client.get("/data/", HTTP_HOST="games.example.net").content.decode()
    assert "arena games download http://games.example.net -o games.jsonl.gz" in page
    assert 'href="/api/games/export"' in page
    page = client.get(
        "/data/?bot=my-bot&variant=scopone", secure=True, HTTP_HOST="games.example.net"
    ).content.decode()
    assert (
        "arena games download https://games.example.net --variant scopone --bot my-bot "
        "-o my-bot.jsonl.gz"
    ) in page
    assert 'href="/api/games/export?variant=scopone&amp;bot=my-bot"' in page


def test_it_rejects_an_unknown_bot_or_variant_on_the_data_set_page(
    client: Any, users: dict[str, Any]
) -> None:
    response = client.get("/data/?bot=nobody")
    assert response.status_code == 400 and "bot &#x27;nobody&#x27;" in response.content.decode()
    response = client.get("/data/?variant=poker")
    assert response.status_code == 400 and "variant &#x27;poker&#x27;" in response.content.decode()


def test_a_bots_export_button_downloads_its_games(client: Any, played_season: Any) -> None:
    page = client.get("/bots/greedy/").content.decode()
    found = re.search(r'id="export-button" href="([^"]+)"', page)
    assert found and found.group(1) == "/api/games/export?bot=greedy"
    assert 'href="/data/?bot=greedy"' in page
    response = client.get(found.group(1))
    assert response.status_code == 200
    lines = gzip.decompress(b"".join(response.streaming_content)).decode().splitlines()
    games = [json.loads(line) for line in lines]
    assert games and all(any(p.startswith("greedy@") for p in g["players"]) for g in games)
    everyone = client.get("/api/games/export")
    assert len(games) < int(everyone["X-Export-Count"])  # its games, not all of them
