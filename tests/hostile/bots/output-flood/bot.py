"""A bot that writes 400 MiB to stderr without a newline (and 40 MiB to stdout) at its first
turn, then plays on: the runner must keep its own memory and the log bounded."""

import os

from arena.sdk import Bot, serve

CHUNK = b"x" * (1024 * 1024)


class OutputFlood(Bot):
    name = "output-flood"

    def __init__(self):
        self.flooded = False

    def choose(self, observation, legal_moves):
        if not self.flooded:
            self.flooded = True
            os.write(2, b"output-flood: flooding now\n")
            for _ in range(400):
                os.write(2, CHUNK)
            for _ in range(40):
                os.write(1, CHUNK)
            os.write(2, b"\noutput-flood: done\n")
        return legal_moves[0]


serve(OutputFlood())
