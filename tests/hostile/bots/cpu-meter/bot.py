"""A bot that measures how much it can compute in each of its turns: a tight loop for a fixed
wall time (``WINDOW_S``), counting its rounds and its own CPU time. Logs ``METER <deal> <moves
played> <rounds> <cpu seconds>`` at each turn, then plays its first legal move. Beside a fair
neighbour its rounds stay what they are alone."""

import sys
import time

from arena.sdk import Bot, serve

WINDOW_S = 0.04


class CpuMeter(Bot):
    name = "cpu-meter"

    def choose(self, observation, legal_moves):
        start, cpu = time.perf_counter(), time.thread_time()
        end = start + WINDOW_S
        rounds = 0
        while time.perf_counter() < end:
            for _ in range(100):
                rounds += 1
        used = time.thread_time() - cpu
        print(
            f"cpu-meter: METER {observation.deal_index} {len(observation.history)} {rounds} "
            f"{used:.4f}",
            file=sys.stderr,
            flush=True,
        )
        return legal_moves[0]


serve(CpuMeter())
