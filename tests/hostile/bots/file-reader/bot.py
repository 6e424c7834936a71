"""A bot that tries to read files outside its folder and write into it, then plays on.

Extra command-line arguments name more host files to try (the tests pass a secret's path).
"""

import os
import sys

from arena.sdk import Bot, serve

PATHS = ["/etc/shadow", "/root", "/home", "/var/run", "/proc/1/environ", *sys.argv[1:]]


def try_read(path):
    try:
        if os.path.isdir(path):
            return f"LISTED {sorted(os.listdir(path))}"
        with open(path, "rb") as handle:
            return f"READ {handle.read(64)!r}"
    except OSError as error:
        return f"blocked ({type(error).__name__})"


class FileReader(Bot):
    name = "file-reader"

    def on_game_start(self, game):
        for path in PATHS:
            print(f"file-reader: read {path}: {try_read(path)}", file=sys.stderr)
        try:
            with open("/bot/planted.txt", "w") as handle:
                handle.write("x")
            print("file-reader: write /bot/planted.txt: WROTE", file=sys.stderr)
        except OSError as error:
            print(f"file-reader: write /bot/planted.txt: blocked ({error})", file=sys.stderr)

    def choose(self, observation, legal_moves):
        return legal_moves[0]


serve(FileReader())
