"""Play it yourself: a signed-in person against any validated bot, card by card.

The game is a match of the runner like any other, played by a worker (:mod:`workers.play`);
the person's seat is a seat of that match served inside the worker (:mod:`webui.play.seat`)
and fed by this app's pages (:mod:`webui.play.views`).
"""
