// Live progress of a match or a season page: polls the page's small JSON document
// (data-live-url, every data-poll-ms) and redraws the progress and the moves being played.
// The newest move comes first. A match page reloads itself once when its match is over (to show the recorded games); a
// season page does when its season is. No framework: text nodes only, never HTML.
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
    for (const move of current.moves.slice(-moves).reverse()) {
      const item = node("li");
      item.appendChild(node("span", "Deal " + (move.deal + 1) + ", move " + (move.move + 1) + " ", "muted"));
      item.appendChild(document.createTextNode(move.text));
      list.appendChild(item);
    }
    box.appendChild(list);
    return box;
  }

  function drawMatch(root, data) {
    set(root, "games-done", data.games_done);
    set(root, "games-planned", data.games_planned);
    set(root, "status", data.status);
    for (const el of root.querySelectorAll('[data-live="status"]')) el.className = "badge " + data.status;
    bar(root, data.games_done, data.games_planned);
    const slot = root.querySelector('[data-live="current"]');
    if (slot) slot.replaceChildren(data.status === "running" ? game(data.current, data.games_planned, 12)
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
    function tick() {
      fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data) {
            (season ? drawSeason : drawMatch)(root, data);
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
    tick();
  }

  function startAll() {
    for (const root of document.querySelectorAll("[data-live-url]")) start(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})();
