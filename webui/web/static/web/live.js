// Live progress of a match or a season page: polls the page's small JSON document
// (data-live-url, every data-poll-ms) and redraws the progress and the moves being played.
// On a match page the game being played is drawn by the replay viewer (viewer.js) as every
// seat sees it: the table, the backs of each hand, the piles, and every deal's moves so far,
// oldest first as a replay lists them; elsewhere (and before a worker publishes the table)
// the latest moves, oldest first too. A match page draws its first state from the JSON the
// server put in the page (#live-initial) as soon as the page is parsed, lists each game of the
// match as it ends, and reloads itself once the match is over (to show the recorded games); a
// season page reloads when its season is over. No framework: text nodes only, never HTML.
(function () {
  "use strict";

  function node(tag, text, cls) {
    const el = document.createElement(tag);
    if (text !== undefined && text !== null) el.textContent = String(text);
    if (cls) el.className = cls;
    return el;
  }

  function set(root, name, text) {
    for (const el of root.querySelectorAll('[data-live="' + name + '"]')) el.textContent = String(text);
  }

  function bar(root, done, planned) {
    const el = root.querySelector('[data-live="bar"]');
    if (el) el.style.width = (planned ? Math.round((100 * done) / planned) : 0) + "%";
  }

  function game(current, planned, moves) {
    const box = node("div", null, "live-game");
    if (!current) {
      box.appendChild(node("p", "Waiting for the first move…", "empty"));
      return box;
    }
    box.appendChild(node("p", "Game " + (current.game + 1) + " of " + planned + ", deal " +
      (current.deal + 1) + " · " + current.players.join(" v ") + " · " +
      current.totals.join("–") + " before this deal", "muted"));
    const list = node("ul", null, "live-moves");
    for (const move of current.moves.slice(-moves)) {
      const item = node("li");
      item.appendChild(node("span", "Deal " + (move.deal + 1) + ", move " + (move.move + 1) + " ", "muted"));
      item.appendChild(document.createTextNode(move.text));
      list.appendChild(item);
    }
    box.appendChild(list);
    return box;
  }

  // The replay viewer's data for the game being played: one frame (the table now, every hand a
  // row of backs), a deal for each deal so far (the viewer reads d.deals[frame.deal]), and
  // every move of the game so far as the live log, oldest first.
  function liveData(current, planned) {
    const t = current.table;
    const players = current.players;
    const n = players.length;
    const sides = t.captured.length;
    const game = current.moves;
    const moves = game.filter(function (m) { return m.deal === current.deal; });
    const last = moves.length ? moves[moves.length - 1] : null;
    const clocks = players.map(function (_, seat) {
      let clock = null;
      for (const m of moves) if (m.seat === seat && m.clock != null) clock = m.clock;
      return clock;
    });
    const deals = [];
    for (let k = 0; k <= current.deal; k++) {
      deals.push({ index: k, dealer: k === current.deal ? t.dealer : null, first_frame: 0,
                   last_frame: 0, thrown_in: 0, score: null,
                   moves: game.filter(function (m) { return m.deal === k; }).length });
    }
    const frame = {
      deal: current.deal, step: moves.length, to_move: t.to_move, dealer: t.dealer,
      hands: t.hands.map(function (k) { return new Array(k).fill(null); }),
      table: t.table, stock: t.stock, captured: t.captured, scope: t.scope,
      totals: current.totals, clocks: clocks, faults: [], score: null,
      move: last && {
        seat: last.seat, side: last.seat % sides, card: last.card, capture: last.capture,
        scopa: last.scopa, ms: last.ms, clock: last.clock, auto: last.auto, leftover: [],
        leftover_side: null,
      },
    };
    return {
      players: players, sides: sides, partners: n > sides,
      side_of: players.map(function (_, seat) { return seat % sides; }),
      deals: deals, frames: [frame], result: null, winner: null, faults: [], error: null,
      live_log: game, live_title: "Game " + (current.game + 1) + " of " + planned,
    };
  }

  // The games of the match finished so far (data.games), until the recorded ones replace them.
  function games(rows) {
    if (!rows.length) return [node("p", "No game finished yet.", "empty")];
    const table = node("table", null, "data live-games");
    const head = node("tr");
    for (const [label, cls] of [["Game"], ["Players"], ["Score", "num"], ["Result"]]) {
      head.appendChild(node("th", label, cls));
    }
    table.appendChild(node("thead")).appendChild(head);
    const body = table.appendChild(node("tbody"));
    for (const g of rows) {
      const row = body.appendChild(node("tr"));
      row.appendChild(node("td", g.index + 1));
      row.appendChild(node("td", g.players.join(" · ")));
      row.appendChild(node("td", g.totals.join("–"), "num"));
      const result = row.appendChild(node("td"));
      if (g.void) result.appendChild(node("span", "void", "badge void"));
      else {
        if (g.forfeit) result.append(node("span", "forfeit", "badge failed"), " ");
        result.append(g.outcome);
      }
      if (g.faults) {
        result.append(" ", node("span", g.faults + " fault" + (g.faults > 1 ? "s" : ""),
          "badge failed"));
      }
    }
    const note = node("p", null, "muted");
    note.appendChild(node("small", "Each game is listed as it ends; its replay opens once the " +
      "match is recorded."));
    return [table, note];
  }

  function viewerOf(root, current, planned) {
    const data = liveData(current, planned);
    let box = root.querySelector(".live-viewer");
    if (box && box.viewer && box.dataset.players === current.players.join("|")) {
      box.viewer.update(data);
      return box;
    }
    box = node("div", null, "live-viewer");
    box.dataset.players = current.players.join("|");
    box.viewer = new window.ScopaViewer.Viewer(box, data, { live: true });
    return box;
  }

  // scope: where the games finished so far are listed (the page, or the TV's own panel).
  function drawMatch(root, data, scope) {
    set(root, "games-done", data.games_done);
    set(root, "games-planned", data.games_planned);
    set(root, "status", data.status);
    for (const el of root.querySelectorAll('[data-live="status"]')) el.className = "badge " + data.status;
    bar(root, data.games_done, data.games_planned);
    const listed = (scope || document).querySelector('[data-live="games"]');
    if (listed && data.games) listed.replaceChildren.apply(listed, games(data.games));
    if (data.wins) set(scope || document, "wins", data.wins.join("–"));
    const slot = root.querySelector('[data-live="current"]');
    if (!slot) return;
    const current = data.current;
    if (data.status === "running" && current && current.table && window.ScopaViewer) {
      const box = viewerOf(slot, current, data.games_planned);
      if (box.parentNode !== slot) slot.replaceChildren(box);
      return;
    }
    slot.replaceChildren(data.status === "running" ? game(current, data.games_planned, 12)
      : node("p", data.status === "scheduled" ? "Waiting for a worker…" : "", "empty"));
  }

  function drawSeason(root, data) {
    set(root, "matches-done", data.matches_done);
    set(root, "matches-planned", data.matches_planned);
    bar(root, data.matches_done, data.matches_planned);
    const slot = root.querySelector('[data-live="playing"]');
    if (!slot) return;
    if (!data.playing.length) {
      slot.replaceChildren(node("p", data.status === "running" ? "No match is being played this moment." : "", "empty"));
      return;
    }
    const items = data.playing.map(function (m) {
      const box = node("div", null, "live-match");
      const head = node("p");
      const link = node("a", m.entrants.join(" v "));
      link.href = "/matches/" + m.match + "/";
      head.appendChild(link);
      head.appendChild(node("span", " · round " + m.round + " · " + m.games_done + " of " +
        m.games_planned + " games played", "muted"));
      box.appendChild(head);
      box.appendChild(game(m.current, m.games_planned, 4));
      return box;
    });
    slot.replaceChildren.apply(slot, items);
  }

  function start(root) {
    const url = root.dataset.liveUrl;
    const every = Number(root.dataset.pollMs) || 2000;
    const season = root.dataset.liveKind === "season";
    const draw = season ? drawSeason : drawMatch;
    function tick() {
      fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data) {
            draw(root, data);
            root.dataset.liveSeen = String(Number(root.dataset.liveSeen || 0) + 1);
            if (season ? data.status === "finished" : data.finished) {
              location.reload();
              return;
            }
          }
          setTimeout(tick, every);
        })
        .catch(function () { setTimeout(tick, every * 2); });
    }
    // The state the page was served with is drawn at once: the board from the first paint.
    const initial = !season && document.getElementById("live-initial");
    if (initial) {
      draw(root, JSON.parse(initial.textContent));
      setTimeout(tick, every);
    } else {
      tick();
    }
  }

  // The featured game (/api/tv): the home page's card and /tv/. The page names the match it
  // shows (?match=): the server keeps it while it is played, and when its match ends answers
  // with the next one being played (or none), which this draws in its place: no reload.
  function aboutText(data) {
    const what = data.season ? data.season : data.kind === "ladder" ? "Ladder match" : "Challenge";
    return what + " · " + data.variant + " · ";
  }

  function drawTv(root, data) {
    const body = root.querySelector('[data-tv="body"]');
    const empty = root.querySelector('[data-tv="empty"]');
    const count = root.querySelector('[data-tv="count"]');
    if (count) {
      count.textContent = data.playing > 1 ? data.playing + " matches are being played now."
        : data.playing === 1 ? "1 match is being played now." : "";
    }
    if (!data.match) {
      body.hidden = true;
      empty.hidden = false;
      root.dataset.tvMatch = "";
      return;
    }
    const url = "/matches/" + data.match + "/";
    if (root.dataset.tvMatch !== String(data.match) || root.dataset.tvDrawn !== "1") {
      root.dataset.tvMatch = String(data.match);
      root.dataset.tvDrawn = "1";
      root.dataset.tvShown = String(Number(root.dataset.tvShown || 0) + 1);
      const title = root.querySelector('[data-tv="title"]');
      title.textContent = data.entrants.join(" v ");
      title.href = url;
      const about = root.querySelector('[data-tv="about"]');
      const link = node("a", "match " + data.match);
      link.href = url;
      about.replaceChildren(document.createTextNode(aboutText(data)), link);
      for (const el of root.querySelectorAll('[data-tv="watch"]')) el.href = url;
      // A new match: its board and its games start afresh.
      const slot = root.querySelector('[data-live="current"]');
      if (slot) slot.replaceChildren(node("p", "Waiting for the first move…", "empty"));
    }
    body.hidden = false;
    empty.hidden = true;
    const live = data.live;
    set(root, "wins", live.wins ? live.wins.join("–") : "–");
    const current = live.current;
    set(root, "score", current ? current.totals.join("–") : "–");
    set(root, "score-label", current ? "game " + (current.game + 1) + " of " + live.games_planned +
      ", before deal " + (current.deal + 1) : "this game's points");
    if (root.dataset.tvKind !== "card") drawMatch(root, live, root);
  }

  function startTv(root) {
    const url = root.dataset.tvUrl;
    const every = Number(root.dataset.pollMs) || 2000;
    function tick() {
      const shown = root.dataset.tvMatch;
      fetch(url + (shown ? "?match=" + encodeURIComponent(shown) : ""),
        { headers: { Accept: "application/json" }, cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data) {
            drawTv(root, data);
            root.dataset.liveSeen = String(Number(root.dataset.liveSeen || 0) + 1);
          }
          setTimeout(tick, every);
        })
        .catch(function () { setTimeout(tick, every * 2); });
    }
    tick();  // at once: the kept page names the players, the poll brings the table
  }

  function startAll() {
    for (const root of document.querySelectorAll("[data-live-url]")) start(root);
    for (const root of document.querySelectorAll("[data-tv-url]")) startTv(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})();
