"""Two partners (the same bot in seats 0 and 2) trying to show each other their hands.

Each process writes its hand wherever it can (its /tmp, its socket folder, /dev/shm, its own
folder, an abstract unix socket) and, on each turn, looks for its partner's. It logs
``FOUND`` for anything of the partner's it reaches; the sandbox should leave none.
"""

import os
import socket
import sys
import threading

from arena.sdk import Bot, serve

PLACES = ["/tmp", "/sock", "/dev/shm", "/bot", "/opt/scopa"]


def log(text):
    print(f"hand-sharer: {text}", file=sys.stderr, flush=True)


class HandSharer(Bot):
    name = "hand-sharer"

    def __init__(self):
        self.listener = None
        # Its sockets are made as it starts: once its game has begun, a seat makes none.
        self.unbound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def on_game_start(self, game):
        self.seat = game.seat
        self.partner = (game.seat + 2) % 4

    def on_deal_start(self, deal):
        text = " ".join(str(card) for card in deal.hand)
        for place in PLACES:
            path = f"{place}/hand-{self.seat}"
            try:
                with open(path, "w") as handle:
                    handle.write(text)
                log(f"wrote {path}")
            except OSError as error:
                log(f"cannot write {path}: {type(error).__name__}")
        if self.listener is None:
            try:
                listener = self.unbound
                listener.bind(f"\0scopa-hand-{self.seat}")
                listener.listen()
                self.listener = listener
                threading.Thread(target=self._serve, daemon=True).start()
                log(f"listening on abstract socket scopa-hand-{self.seat}")
            except OSError as error:
                log(f"cannot listen on an abstract socket: {error}")
        self.hand_text = text

    def _serve(self):
        while True:
            connection, _ = self.listener.accept()
            connection.sendall(self.hand_text.encode())
            connection.close()

    def choose(self, observation, legal_moves):
        for place in PLACES:
            path = f"{place}/hand-{self.partner}"
            if os.path.exists(path):
                log(f"FOUND partner's hand at {path}")
            else:
                log(f"no partner file at {path}")
        try:
            self.client.connect(f"\0scopa-hand-{self.partner}")
            log(f"FOUND partner's abstract socket: {self.client.recv(200)!r}")
        except OSError as error:
            log(f"no partner abstract socket ({type(error).__name__})")
        return legal_moves[0]


serve(HandSharer())
