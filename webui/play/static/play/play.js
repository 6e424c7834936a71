// The Play page's table: polls the game's JSON state, draws the person's view, and POSTs the
// card they tap (asking which cards to take when a card has more than one capture).
(function () {
  "use strict";
  const POLL_MS = 700;
  const QUICK_MS = 150; // right after a move: the bot's reply usually comes at once

  function $(id) { return document.getElementById(id); }

  function start() {
    const root = $("play");
    if (!root) return;
    const stateUrl = root.dataset.stateUrl;
    const moveUrl = root.dataset.moveUrl;
    const csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
    let state = JSON.parse($("play-initial").textContent);
    let timer = null;
    let sending = false;
    let countdown = null;
    let quick = 0; // polls left at QUICK_MS

    function cardButton(name, onClick) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "play-card";
      button.dataset.card = name;
      button.setAttribute("aria-label", "Play " + window.ScopaCards.label(name));
      button.appendChild(window.ScopaCards.card(name));
      button.addEventListener("click", onClick);
      return button;
    }

    function movesOf(card) {
      return state.legal.filter((m) => m.split(":")[0] === card);
    }

    function showError(text) {
      const box = $("play-error");
      box.textContent = text;
      box.hidden = !text;
    }

    function send(move) {
      if (sending) return;
      sending = true;
      $("play-captures").hidden = true;
      fetch(moveUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify({ turn: state.turn, move: move }),
        credentials: "same-origin",
      }).then((r) => r.json().then((body) => ({ ok: r.ok, body: body })))
        .then(({ ok, body }) => {
          if (ok) { showError(""); quick = 8; draw(body.state); } else { showError(body.error || "refused"); }
        })
        .catch((e) => showError("could not send the move: " + e))
        .finally(() => { sending = false; poll(); });
    }

    function choose(card) {
      if (!state.your_turn || sending) return;
      const moves = movesOf(card);
      if (moves.length === 0) { showError("you cannot play " + card + " now"); return; }
      if (moves.length === 1) { send(moves[0]); return; }
      const list = $("play-capture-list");
      list.replaceChildren();
      for (const move of moves) {
        const taken = move.split(":")[1] || "";
        const option = document.createElement("button");
        option.type = "button";
        option.className = "play-capture secondary";
        option.dataset.move = move;
        option.setAttribute("aria-label", taken ? "Take " + taken.split("+").join(", ") : "Take nothing");
        if (taken) {
          for (const c of taken.split("+")) option.appendChild(window.ScopaCards.card(c));
        } else {
          option.textContent = "lay it down";
        }
        option.addEventListener("click", () => send(move));
        list.appendChild(option);
      }
      $("play-captures").hidden = false;
    }

    function moveText(m, view) {
      const who = m.seat === view.seat ? "You" : "Bot";
      const label = window.ScopaCards.label;
      let text = who + " played " + label(m.card);
      if (m.capture.length) text += " and took " + m.capture.map(label).join(", ");
      if (m.auto) text += " (played by the arena: " + m.auto + ")";
      return text;
    }

    function statusText(s) {
      if (s.status === "queued") return "Waiting for a worker to start the game…";
      if (s.status === "void") return "The arena could not play this game: " + (s.error || "void");
      if (s.status === "over") {
        let text = "The game is over: " + s.outcome;
        if (s.totals && s.totals.length) {
          const you = s.totals[s.you], bot = s.totals[1 - s.you];
          text += " (" + you + "–" + bot + ")";
        }
        if (s.forfeit) text += "; " + (s.forfeit.side === s.you ? "you" : "the bot") + " forfeited: " + s.forfeit.reason;
        return text + ".";
      }
      if (s.your_turn) return "Your turn: tap a card. " + Math.ceil(s.seconds_left || 0) + " s left.";
      return "The bot is thinking…";
    }

    function draw(next) {
      state = next;
      const view = state.view || {};
      const you = state.you;
      const root = $("play");
      root.dataset.status = state.status;
      root.dataset.yourTurn = state.your_turn ? "1" : "0";
      root.dataset.turn = String(state.turn);
      $("play-status").textContent = statusText(state);
      const totals = view.totals || [0, 0];
      $("play-scores").textContent = view.players ?
        "You " + (totals[you] || 0) + " · " + state.bot + " " + (totals[1 - you] || 0) +
        (state.target ? " (of " + state.target + ")" : "") +
        " · deal " + ((view.deal || 0) + 1) +
        " · taken: you " + ((view.captured || [])[you] || 0) + ", bot " + ((view.captured || [])[1 - you] || 0) +
        " · scope: you " + ((view.scope || [])[you] || 0) + ", bot " + ((view.scope || [])[1 - you] || 0) : "";
      const backs = $("play-backs");
      backs.replaceChildren();
      const botCards = (view.hand_sizes || [])[1 - you] || 0;
      for (let i = 0; i < botCards; i++) backs.appendChild(window.ScopaCards.back());
      const table = $("play-table");
      table.replaceChildren();
      for (const c of view.table || []) table.appendChild(window.ScopaCards.card(c));
      $("play-stock").textContent = view.players ? (view.stock || 0) + " cards in the stock" : "";
      const hand = $("play-hand");
      hand.replaceChildren();
      for (const c of view.hand || []) {
        const button = cardButton(c, () => choose(c));
        button.disabled = !state.your_turn || movesOf(c).length === 0;
        hand.appendChild(button);
      }
      if (!state.your_turn) $("play-captures").hidden = true;
      const log = $("play-moves");
      log.replaceChildren();
      (view.moves || []).forEach((m, k) => {
        const li = document.createElement("li");
        const no = document.createElement("span");
        no.className = "play-move-no";
        no.textContent = String(k + 1);
        li.append(no, moveText(m, view));
        if (m.seat === view.seat) li.className = "mine";
        log.appendChild(li);
      });
      log.scrollTop = log.scrollHeight;  // the newest move in view
      drawBreakdown(view.last_deal, you);
      drawDeals(view, you);
      $("play-target").textContent = targetText(state, view, you);
      $("play-moves-title").textContent = view.players ? "Moves of deal " + ((view.deal || 0) + 1) : "Moves of this deal";
      const finished = state.status === "over" || state.status === "void";
      $("play-end").hidden = !finished;
      $("play-resign").hidden = finished;
      if (state.replay_url) $("play-replay").href = state.replay_url;
      else $("play-replay").hidden = true;
      clearInterval(countdown);
      if (state.your_turn && state.seconds_left !== null) {
        const until = Date.now() + state.seconds_left * 1000;
        countdown = setInterval(() => {
          const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
          $("play-status").textContent = "Your turn: tap a card. " + left + " s left.";
        }, 500);
      }
    }

    // A deal's score, point by point, with the counts behind each point (cards 21-19, coins
    // 6-4, primiera 78-70): the categories are the engine's (arena.engine.POINT_CATEGORIES),
    // given by the page as JSON, and the counts the engine's too (arena.engine.deal_counts,
    // in the view): nothing is scored here.
    const POINTS = JSON.parse($("point-categories").textContent);
    const WHO_TOOK = { settebello: true, re_bello: true }; // a count of one card: say who took it

    function countText(key, mine, bot) {
      if (WHO_TOOK[key]) return mine ? "you" : bot ? "the bot" : "nobody";
      return mine + "–" + bot;
    }

    function breakdownTable(deal, you) {
      const mine = deal.points[you], bot = deal.points[1 - you];
      const counts = deal.counts || null;
      const table = document.createElement("table");
      table.className = "data play-breakdown";
      const row = (cells, tag) => {
        const tr = document.createElement("tr");
        cells.forEach((text, k) => {
          const cell = document.createElement(k === 0 && tag === "td" ? "th" : tag);
          if (k === 0 && tag === "td") cell.scope = "row";
          cell.textContent = String(text);
          if (k > 0) cell.className = "num";
          tr.appendChild(cell);
        });
        return tr;
      };
      const thead = document.createElement("thead");
      const head = row(counts ? ["", "Count", "You", "Bot"] : ["", "You", "Bot"], "th");
      if (counts) head.children[1].title = "yours–the bot's: cards, coins, primiera value, who took the settebello, scope";
      thead.appendChild(head);
      const tbody = document.createElement("tbody");
      for (const c of POINTS) {
        const a = mine[c.key] || 0, b = bot[c.key] || 0;
        const ca = counts ? counts[you][c.key] : undefined, cb = counts ? counts[1 - you][c.key] : undefined;
        if (!(c.key in mine) && !a && !b && ca === undefined) continue;
        if (c.optional && !a && !b && ca === undefined) continue;
        const tr = counts ?
          row([c.label, countText(c.key, ca || 0, cb || 0), a, b], "td") :
          row([c.label, a, b], "td");
        tr.dataset.category = c.key;
        tr.firstChild.title = c.meaning; // the label says the category, its title what wins it
        tbody.appendChild(tr);
      }
      const total = row(counts ? ["Deal total", "", mine.total, bot.total] : ["Deal total", mine.total, bot.total], "td");
      total.className = "total";
      tbody.appendChild(total);
      table.append(thead, tbody);
      return table;
    }

    function dealTitle(deal, you) {
      const mine = deal.points[you], bot = deal.points[1 - you];
      return "Deal " + (deal.deal + 1) + ": you " + mine.total + ", bot " + bot.total +
        " point" + (bot.total === 1 && mine.total === 1 ? "" : "s");
    }

    function drawBreakdown(last, you) {
      const box = $("play-last-deal");
      box.replaceChildren();
      if (!last) { box.hidden = true; return; }
      box.hidden = false;
      const head = document.createElement("h3");
      head.textContent = dealTitle(last, you);
      box.append(head, breakdownTable(last, you));
    }

    // Every finished deal stays reachable: its moves and its breakdown, one <details> each
    // (drawn again only when a deal ends, so one opened stays open while the game goes on).
    let dealsDrawn = -1;
    function drawDeals(view, you) {
      const deals = view.deals || [];
      const box = $("play-deals");
      box.hidden = deals.length === 0;
      if (deals.length === dealsDrawn) return;
      dealsDrawn = deals.length;
      const list = $("play-deal-list");
      list.replaceChildren();
      for (const deal of deals) {
        const details = document.createElement("details");
        details.className = "play-deal";
        details.dataset.deal = String(deal.deal);
        const summary = document.createElement("summary");
        summary.textContent = dealTitle(deal, you) + " · " + (deal.moves || []).length + " moves";
        const moves = document.createElement("ol");
        moves.className = "play-deal-moves";
        for (const m of deal.moves || []) {
          const li = document.createElement("li");
          li.textContent = moveText(m, view);
          if (m.seat === view.seat) li.className = "mine";
          moves.appendChild(li);
        }
        details.append(summary, breakdownTable(deal, you), moves);
        list.appendChild(details);
      }
    }

    function targetText(s, view, you) {
      if (!s.target) return "";
      const totals = view.totals || [0, 0];
      const mine = totals[you] || 0, bot = totals[1 - you] || 0;
      let text = "First to " + s.target + " points wins";
      if (s.status === "playing" || s.status === "queued") {
        text += ": you need " + Math.max(0, s.target - mine) + " more, the bot " + Math.max(0, s.target - bot) + ".";
      } else {
        text += ".";
      }
      return text;
    }

    function poll() {
      clearTimeout(timer);
      if (state.status === "over" || state.status === "void") return;
      let delay = state.your_turn ? POLL_MS * 2 : POLL_MS;
      if (quick > 0 && !state.your_turn) { quick -= 1; delay = QUICK_MS; }
      timer = setTimeout(() => {
        fetch(stateUrl, { credentials: "same-origin" })
          .then((r) => r.json())
          .then((s) => { if (!sending && s && s.status) draw(s); })
          .catch(() => {})
          .finally(poll);
      }, delay);
    }

    const resign = $("play-resign");
    resign.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!window.confirm("Give this game up? The bot wins it.")) return;
      fetch(root.dataset.resignUrl, {
        method: "POST",
        headers: { "X-CSRFToken": csrf, "Accept": "application/json" },
        credentials: "same-origin",
      }).then((r) => r.json().then((body) => ({ ok: r.ok, body: body })))
        .then(({ ok, body }) => {
          if (ok) { showError(""); draw(body.state); quick = 8; poll(); }
          else showError(body.error || "refused");
        })
        .catch((e) => showError("could not resign: " + e));
    });

    $("play-cancel").addEventListener("click", () => { $("play-captures").hidden = true; });
    draw(state);
    poll();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
