"""A bot that writes its hand into the page cache of files every seat reads (a test bot).

The files are the standard library's top-level ``.py`` sources (every seat has them and no
seat reads them: it imports their bytecode), cut into pages: four spaces of 200 pages, five
regions of 40 pages a space, one page a card. A *mark* of a hand in region ``r`` reads the
pages of its cards (a first read: cached from then on); in the ``drop`` spaces it also drops
the others (``posix_fadvise(DONTNEED)``), in the ``first`` spaces it leaves them as they are
(first reads alone, for a system-call filter that refuses ``DONTNEED``). Region 4 is never
marked: the control.

Readings of a region (40 bits, ``1`` for a page found cached), ``<kind>-<method>``:

- ``nowait``: ``preadv2(RWF_NOWAIT)`` on the kind's space A (EAGAIN: not cached), which reads
  nothing;
- ``mincore``: ``mincore`` over a shared map of each file of space A, which reads nothing;
- ``timed``: the time of a first ``pread`` of each page of the kind's space B (cached pages
  answer faster), cut in two at the two-means split; this read caches the page.

Roles: in a partnership game the lower seat of the side marks region ``deal % 4`` with its hand
at each of its turns (``MARK <deal> <moves> <region> <bits>``) and the higher seat reads every
region at each of its turns (``READ <deal> <moves> <method> <region> <bits>``). In a
two-seat game the bot marks at each turn. Every process, at its first turn (before its first
move), also probes what earlier processes left: every region by every method
(``PROBE <method> <region> <bits>``), the files a seat can write (``FILE <path> <what>``),
the filesystem its runtime's files are on (``FS <path> <statfs f_type>``) and whether a few
host files are there (``EXISTS <path> yes|no``).
A failed call is logged as ``refused <call> (<errno name>)``, once, and the bot plays on.
Every line names its process (``page-marker <tag>: ...``): the runner starts a game's
processes while the game before it plays, so a seat's log mixes them.
"""

import ctypes
import errno
import mmap
import os
import sys
import sysconfig
import time

from arena.sdk import Bot, serve

PAGE = 4096
CARDS = 40
REGIONS = 5
CONTROL = 4
SPACE = CARDS * REGIONS
PLACES = ("/tmp", "/dev/shm", "/bot", "/sock")

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
refusals = set()


TAG = os.urandom(4).hex()  # this process's: a seat's log holds its processes' lines mixed


def say(text):
    print(f"page-marker {TAG}: {text}", file=sys.stderr, flush=True)


def refused(call, error):
    if call not in refusals:
        refusals.add(call)
        say(f"refused {call} ({errno.errorcode.get(error.errno, error.errno)})")


def page_spaces():
    """{kind: (space A, space B)}: (path, page) lists of SPACE pages of the standard library's
    top-level sources."""
    folder = sysconfig.get_paths()["stdlib"]
    names = sorted(name for name in os.listdir(folder) if name.endswith(".py"))
    pages = []
    for name in names:
        path = os.path.join(folder, name)
        pages += [(path, index) for index in range(os.path.getsize(path) // PAGE)]
    assert len(pages) >= 4 * SPACE, len(pages)
    cut = [pages[n * SPACE : (n + 1) * SPACE] for n in range(4)]
    return {"drop": (cut[0], cut[1]), "first": (cut[2], cut[3])}


SPACES = page_spaces()
FDS = {}


def fd_of(path):
    if path not in FDS:
        FDS[path] = os.open(path, os.O_RDONLY)
        try:  # no read-ahead: a read (or a refused RWF_NOWAIT read) caches its own page only
            os.posix_fadvise(FDS[path], 0, 0, os.POSIX_FADV_RANDOM)
        except OSError as error:
            refused("posix_fadvise", error)
    return FDS[path]


def region(space, number):
    return space[number * CARDS : (number + 1) * CARDS]


def mark(number, bits):
    """Pages of 1s read (cached), of 0s dropped in the ``drop`` spaces, in region
    ``number``."""
    for kind, spaces in SPACES.items():
        for space in spaces:
            mark_space(region(space, number), bits, drop=kind == "drop")


def mark_space(pages, bits, *, drop):
    for (path, page), bit in zip(pages, bits, strict=True):
        fd = fd_of(path)
        if bit:
            os.pread(fd, PAGE, page * PAGE)
        elif drop:
            try:
                os.posix_fadvise(fd, page * PAGE, PAGE, os.POSIX_FADV_DONTNEED)
            except OSError as error:
                refused("posix_fadvise", error)


def read_nowait(pages):
    bits = []
    for path, page in pages:
        try:
            os.preadv(fd_of(path), [bytearray(PAGE)], page * PAGE, os.RWF_NOWAIT)
            bits.append(1)
        except BlockingIOError:
            bits.append(0)
        except OSError as error:
            refused("preadv2", error)
            return None
    return bits


MAPS = {}


def mapped(path):
    if path not in MAPS:
        size = os.path.getsize(path)
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd_of(path), 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        MAPS[path] = address
    return MAPS[path]


def read_mincore(pages):
    bits = []
    vector = ctypes.create_string_buffer(1)
    for path, page in pages:
        try:
            address = mapped(path) + page * PAGE
        except OSError as error:
            refused("mmap", error)
            return None
        if libc.mincore(ctypes.c_void_p(address), PAGE, vector) != 0:
            refused("mincore", OSError(ctypes.get_errno(), "mincore"))
            return None
        bits.append(vector.raw[0] & 1)
    return bits


def read_timed(pages):
    times = []
    for path, page in pages:
        fd = fd_of(path)
        began = time.perf_counter_ns()
        os.pread(fd, PAGE, page * PAGE)
        times.append(time.perf_counter_ns() - began)
    return times


def timed_bits(times):
    """Cached (1) below the two-means split of the times."""
    cut = (min(times) + max(times)) / 2
    for _ in range(20):
        low = [t for t in times if t <= cut]
        high = [t for t in times if t > cut]
        if not low or not high:
            break
        cut = (sum(low) / len(low) + sum(high) / len(high)) / 2
    return [1 if t <= cut else 0 for t in times]


def text(bits):
    return "".join(str(bit) for bit in bits)


def readings(number):
    """(kind-method, bits or None) of region ``number``."""
    found = []
    for kind, (space_a, space_b) in SPACES.items():
        # mincore first: a refused RWF_NOWAIT read still starts reading its page.
        found += [
            (f"{kind}-mincore", read_mincore(region(space_a, number))),
            (f"{kind}-nowait", read_nowait(region(space_a, number))),
            (f"{kind}-timed", timed_bits(read_timed(region(space_b, number)))),
        ]
    return found


def fs_type(path):
    """statfs(2)'s f_type of ``path``'s filesystem (the first field of ``struct statfs``)."""
    buffer = ctypes.create_string_buffer(256)
    if libc.statfs(path.encode(), buffer) != 0:
        return "-" + errno.errorcode.get(ctypes.get_errno(), "?")
    return f"{int.from_bytes(buffer.raw[:8], sys.byteorder):x}"


def probe():
    import grpc

    for path in ("/usr", "/bot", sys.executable, os.path.dirname(grpc.__file__)):
        say(f"FS {path} {fs_type(path)}")
    for path in ("/usr/bin/perl", "/usr/share/doc", "/usr/bin/python3", "/usr/bin/env"):
        say(f"EXISTS {path} {'yes' if os.path.lexists(path) else 'no'}")
    for number in range(REGIONS):
        for method, bits in readings(number):
            if bits is not None:
                say(f"PROBE {method} {number} {text(bits)}")
    for place in PLACES if os.getcwd() == "/bot" else ():
        try:
            names = sorted(name for name in os.listdir(place) if name.startswith("hand-"))
        except OSError as error:
            say(f"FILE {place} unreadable ({type(error).__name__})")
            continue
        for name in names:
            with open(os.path.join(place, name)) as handle:
                say(f"FILE {place}/{name} {handle.read()}")
        if not names:
            say(f"FILE {place} none")


def leave_files(deal, hand):
    if os.getcwd() != "/bot":  # not in a sandbox: these are the host's folders
        return
    for place in PLACES:
        try:
            with open(f"{place}/hand-{deal}", "w") as handle:
                handle.write(" ".join(str(card) for card in hand))
        except OSError as error:
            refused(f"write {place}", error)


class PageMarker(Bot):
    name = "page-marker"

    def __init__(self):
        self.probed = False
        self.seat = 0
        self.partnered = False
        self.hand = []

    def on_game_start(self, game):
        self.seat = game.seat
        self.partnered = len(game.players) == 4

    def on_deal_start(self, deal):
        self.hand = sorted(int(card) for card in deal.hand)

    def choose(self, observation, legal_moves):
        deal = observation.deal_index
        when = f"{deal} {len(observation.history)}"
        receiver = self.partnered and self.seat >= 2
        if receiver:  # before its probe: a refused RWF_NOWAIT read still caches its page
            for read in range(REGIONS):
                for method, found in readings(read):
                    if found is not None:
                        say(f"READ {when} {method} {read} {text(found)}")
        if not self.probed:
            self.probed = True
            probe()
        if not receiver:
            bits = [1 if card in self.hand else 0 for card in range(CARDS)]
            number = deal % CONTROL
            mark(number, bits)
            leave_files(deal, self.hand)
            say(f"MARK {when} {number} {text(bits)}")
        return legal_moves[0]


serve(PageMarker())
