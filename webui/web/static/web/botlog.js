// A bot's own log of a game, step by step with the replay viewer (the game page, for the
// owners of the game's bots and staff only: the page has this panel only for them, and the
// logs' route answers 404 to anyone else).
//
// For each seat whose log the reader may see, the panel shows what its bot wrote while it
// chose its latest move up to the step the viewer shows (the move just played, when it was
// that seat's), or, before its first move, what it wrote while starting.
(function () {
  "use strict";

  function h(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text != null) node.textContent = text;
    return node;
  }

  function seatsName(log) {
    return (log.seats.length > 1 ? "Seats " : "Seat ") + log.seats.join(" and ");
  }

  // The seat's latest turn at or before the frame's step: the move just played is the
  // frame's deal's move number step - 1.
  function latestTurn(log, frame) {
    let found = null;
    for (const t of log.turns) {
      if (t.deal < frame.deal || (t.deal === frame.deal && t.move < frame.step)) found = t;
      else break;
    }
    return found;
  }

  function paint(panes, frame) {
    for (const pane of panes) {
      const log = pane.log;
      const turn = latestTurn(log, frame);
      let where;
      let text;
      if (turn == null) {
        where = "Before its first move";
        text = log.text.slice(0, log.turns.length ? log.turns[0].start : log.text.length);
      } else {
        const just = turn.deal === frame.deal && turn.move === frame.step - 1;
        where = (just ? "Its move just played" : "Its last move") + ": deal " +
          (turn.deal + 1) + ", move " + (turn.move + 1) + " (seat " + turn.seat + ")";
        text = log.text.slice(turn.start, turn.end);
      }
      pane.where.textContent = where;
      pane.text.textContent = text || "(nothing written)";
      pane.text.classList.toggle("empty", !text);
      pane.box.dataset.deal = turn == null ? "" : String(turn.deal);
      pane.box.dataset.move = turn == null ? "" : String(turn.move);
    }
  }

  async function start(box) {
    let body;
    try {
      const res = await fetch(box.dataset.logsUrl, { headers: { Accept: "application/json" } });
      if (!res.ok) throw new Error(res.statusText);
      body = await res.json();
    } catch (err) {
      box.hidden = true;
      return;
    }
    const list = box.querySelector(".bot-logs-seats");
    const panes = body.logs.map((log) => {
      const pane = { log: log, box: h("div", "bot-log"), where: h("p", "muted bot-log-turn"),
        text: h("pre", "log bot-log-text") };
      pane.box.dataset.seat = String(log.seat);
      pane.box.append(h("h3", null, seatsName(log) + " · " + log.bot), pane.where, pane.text);
      if (log.cut) {
        pane.box.append(h("p", "muted", "Cut: this game's log keeps the first part of what " +
          "the bot wrote (" + log.cut.toLocaleString() + " characters more were left out)."));
      }
      list.append(pane.box);
      return pane;
    });
    const root = document.getElementById(box.dataset.viewer);
    if (!root) return;
    const show = () => {
      const viewer = root.viewer;
      if (!viewer || !viewer.data || !viewer.data.frames) return;
      const frame = viewer.data.frames[viewer.index];
      if (frame) paint(panes, frame);
    };
    // The viewer marks the step it shows on its root (data-frame) at every step.
    new MutationObserver(show).observe(root, { attributes: true, attributeFilter: ["data-frame"] });
    show();
  }

  function boot() {
    for (const box of document.querySelectorAll("[data-logs-url]")) start(box);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
