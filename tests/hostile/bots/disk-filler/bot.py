"""A bot that, at its first turn, writes as much as it can into every folder it may write to
(``/tmp``, ``/dev/shm``, ``/sock``), in files of up to 1 MiB (the limit on a file's size), and
tries the host's folders it can name, then plays on. It logs how many bytes each place took
and the error that stopped it."""

import errno
import os
import sys

from arena.sdk import Bot, serve

CHUNK = b"d" * (256 * 1024)
TRY = 2560 * 1024 * 1024  # 2.5 GiB
PLACES = ["/tmp", "/dev/shm", "/sock", "/bot", "/opt/scopa", "/usr", "/", "/etc", "/proc"]


def fill(folder):
    written = 0
    index = 0
    while written < TRY:
        path = os.path.join(folder, f"filler-{index}.bin")
        index += 1
        try:
            with open(path, "wb", buffering=0) as handle:
                while written < TRY:
                    written += handle.write(CHUNK)
        except OSError as error:
            if error.errno == errno.EFBIG:  # this file is full: the next one
                continue
            return written, errno.errorcode.get(error.errno, "?")
    return written, "no-limit"


class DiskFiller(Bot):
    name = "disk-filler"

    def __init__(self):
        self.done = False

    def choose(self, observation, legal_moves):
        if not self.done:
            self.done = True
            for place in PLACES:
                written, stop = fill(place)
                print(
                    f"disk-filler: {place} took {written} bytes ({stop})",
                    file=sys.stderr,
                    flush=True,
                )
        return legal_moves[0]


serve(DiskFiller())
