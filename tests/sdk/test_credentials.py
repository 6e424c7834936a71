"""Where ``arena login`` keeps a token: a file only its owner reads, the environment winning."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from arena.sdk.credentials import (
    DEFAULT_SERVER,
    CredentialsError,
    config_file,
    normalize_server,
    resolve,
    save,
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "config")}


def test_a_saved_token_is_private_and_found_again_for_its_server(env: dict[str, str]) -> None:
    path = save("https://arena.example.org/", "sa_secret", env)
    assert path == config_file(env) and path.parent.name == "scopa-arena"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    found = resolve(env=env)
    assert (found.server, found.token, found.source) == (
        "https://arena.example.org",
        "sa_secret",
        str(path),
    )
    other = resolve("http://127.0.0.1:9000", env)
    assert (other.server, other.token) == ("http://127.0.0.1:9000", "")  # not that site's token
    assert not list(path.parent.glob(".credentials-*"))  # no scratch file left behind


def test_the_environment_wins_over_the_file(env: dict[str, str]) -> None:
    save("https://arena.example.org", "sa_saved", env)
    with_token = {**env, "ARENA_TOKEN": "sa_from_env"}
    assert resolve(env=with_token).token == "sa_from_env"
    assert resolve(env=with_token).source == "ARENA_TOKEN"
    elsewhere = {**env, "ARENA_SERVER": "http://127.0.0.1:8123"}
    assert (resolve(env=elsewhere).server, resolve(env=elsewhere).token) == (
        "http://127.0.0.1:8123",
        "",
    )
    assert resolve("https://arena.example.org", elsewhere).token == "sa_saved"  # --server wins


def test_without_anything_the_local_site_and_no_token(env: dict[str, str]) -> None:
    found = resolve(env=env)
    assert (found.server, found.token, found.source) == (DEFAULT_SERVER, "", "")


@pytest.mark.parametrize("url", ["arena.example.org", "ftp://x.org", "http://", "http://x?a=1"])
def test_a_server_that_is_no_site_address_is_refused(url: str) -> None:
    with pytest.raises(CredentialsError, match="server") as error:
        normalize_server(url)
    assert "\n" not in str(error.value)


def test_a_damaged_file_says_to_log_in_again(env: dict[str, str]) -> None:
    path = config_file(env)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(CredentialsError, match="run arena login again"):
        resolve(env=env)
