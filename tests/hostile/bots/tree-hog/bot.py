"""A bot that, at its first turn, forks three children that allocate (and touch) memory in
lockstep, 25 MiB each a step, up to 600 MiB each, and report what they hold after each step: a
limit per process would let the three hold three times it together. The lockstep makes what
they report at the last step what they held at once."""

import os
import time

from arena.sdk import Bot, serve

STEP = 25 * 1024 * 1024
STEPS = 24  # 600 MiB each


def hog(index, go, done):
    held = []
    while True:
        if not os.read(go, 1):
            os._exit(0)
        block = bytearray(STEP)
        for i in range(0, STEP, 4096):
            block[i] = 1
        held.append(block)
        # One write a line: the three children share the log.
        os.write(2, f"tree-hog: child {index} holds {len(held) * 25} MiB\n".encode())
        os.write(done, b".")


class TreeHog(Bot):
    name = "tree-hog"

    def __init__(self):
        self.started = False
        # Its pipes are made as it starts: once its game has begun, a seat makes none.
        self.pipes = [(os.pipe(), os.pipe()) for _ in range(3)]

    def choose(self, observation, legal_moves):
        if not self.started:
            self.started = True
            children = []
            for index, ((go_read, go_write), (done_read, done_write)) in enumerate(self.pipes):
                pid = os.fork()
                if pid == 0:
                    hog(index, go_read, done_write)
                os.close(go_read)
                os.close(done_write)
                children.append((pid, go_write, done_read))
            for step in range(STEPS):
                for _, go, _ in children:
                    os.write(go, b".")
                if not all(os.read(done, 1) for _, _, done in children):
                    os.write(2, f"tree-hog: a child is gone at step {step + 1}\n".encode())
                    break
                time.sleep(0.03)  # the watchdog's pace, where there is no control group
            for pid, go, _ in children:
                os.close(go)
                os.waitpid(pid, 0)
        return legal_moves[0]


serve(TreeHog())
