"""A bot that, at its first turn, makes a chain of 3,000 nested folders in its home (deeper
than a recursive removal can go) with links to a folder of the host named in ``ESCAPE`` at
several depths, then plays on: the runner must remove what it can without following a link."""

import os
import sys

from arena.sdk import Bot, serve

DEPTH = 3000


class DeepDirs(Bot):
    name = "deep-dirs"

    def __init__(self):
        self.done = False

    def choose(self, observation, legal_moves):
        if not self.done:
            self.done = True
            home = os.environ.get("HOME", "/tmp")
            target = os.environ.get("ESCAPE", "/")
            here = os.getcwd()
            os.chdir(home)
            try:
                os.symlink(target, "escape")
                for level in range(DEPTH):
                    os.mkdir("d")
                    os.chdir("d")
                    if level % 1000 == 0:
                        os.symlink(target, "escape")
                print(f"deep-dirs: made {DEPTH} levels under {home}", file=sys.stderr, flush=True)
            except OSError as error:
                print(f"deep-dirs: stopped: {error}", file=sys.stderr, flush=True)
            finally:
                os.chdir(here)
        return legal_moves[0]


serve(DeepDirs())
