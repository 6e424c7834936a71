"""A seat that makes every system call number in its sealed sandbox (a test bot).

From its first turn on, at each turn it makes the next ``PER_TURN`` numbers of ``0..LAST``, each
in a child of its own with all-zero arguments (a zero time-out for the three calls that would
wait for ever), skipping the five calls that would end or stop the child itself (``exit``,
``exit_group``, ``rt_sigreturn``, ``pause``, ``vfork``), and logs how each ended: ``CALL <n>
errno <e>`` (0 when it returned), ``CALL <n> signal <s>``. A child reports through its exit
status: a sealed seat can make no pipe. The bot plays the first legal move.
"""

import ctypes
import os
import sys

from arena.sdk import Bot, serve

LAST = 479
PER_TURN = 24
SKIPPED = {60, 231, 15, 34, 58}  # exit, exit_group, rt_sigreturn, pause, vfork (x86_64)
ZERO_TIMEOUT = {23: 4, 270: 4, 271: 2}  # select, pselect6, ppoll: the time-out's argument

libc = ctypes.CDLL(None, use_errno=True)
zero = ctypes.create_string_buffer(16)


def say(text):
    print(f"syscall-sweeper: {text}", file=sys.stderr, flush=True)


def make(number):
    args = [ctypes.c_ulong(0)] * 6
    if number in ZERO_TIMEOUT:
        args[ZERO_TIMEOUT[number]] = ctypes.cast(zero, ctypes.c_void_p)
    pid = os.fork()
    if pid == 0:
        result = libc.syscall(ctypes.c_long(number), *args)
        if result == 0 and number in (56, 57):  # a clone or fork that went through
            os._exit(0)
        os._exit(min(ctypes.get_errno(), 255) if result < 0 else 0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        say(f"CALL {number} signal {os.WTERMSIG(status)}")
    else:
        say(f"CALL {number} errno {os.WEXITSTATUS(status)}")


class Sweeper(Bot):
    name = "syscall-sweeper"

    def __init__(self):
        self.next = 0

    def choose(self, observation, legal_moves):
        done = 0
        while self.next <= LAST and done < PER_TURN:
            if self.next not in SKIPPED:
                make(self.next)
                done += 1
            self.next += 1
        if self.next == LAST + 1:
            say("SWEPT")
            self.next += 1
        return legal_moves[0]


serve(Sweeper())
