// The replay viewer: draws the frames that the server expanded from a replay (replay_frames.py)
// and steps through them with buttons, keys (left/right, space to play and pause, Home/End,
// PageUp/PageDown for deals) and, on a touch screen, swipes across the table. It knows no
// rules: every state comes from the engine.
//
// "As seat N saw" shows only what that seat knew at the step shown: its own hand, the backs of
// the others, the moves played so far (never the rest of the deal), the faults so far, a deal's
// score once the deal is over, and no outcome of the game before its end (the page's own
// spoilers, marked data-spoiler, are hidden too).
(function () {
  "use strict";
  const C = window.ScopaCards;
  // The point categories are listed once, in the engine (arena.engine.POINT_CATEGORIES), and
  // given by the page as JSON: key, label, abbreviation, meaning, optional (a variant's extra).
  function pointCategories() {
    const node = document.getElementById("point-categories");
    return node ? JSON.parse(node.textContent) : [];
  }
  // Where each seat sits, counted from the seat at the bottom, in playing order (anticlockwise:
  // the next seat is at the right).
  const PLACES = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"],
                   4: ["bottom", "right", "top", "left"] };

  const svgIcon = (d) => '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">' +
    '<path fill="currentColor" d="' + d + '"/></svg>';
  const ICONS = {
    first: svgIcon("M3 2h2v12H3zM14 2v12L6 8z"),
    last: svgIcon("M11 2h2v12h-2zM2 2v12l8-6z"),
    play: svgIcon("M4 2v12l10-6z"),
    pause: svgIcon("M3 2h4v12H3zM9 2h4v12H9z"),
  };

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "class") node.className = attrs[k];
      else if (k === "text") node.textContent = attrs[k];
      else node.setAttribute(k, attrs[k]);
    }
    for (const c of children) if (c != null) node.append(c);
    return node;
  }

  function seconds(ms) {
    if (ms == null) return "–";
    if (ms < 60000) return (ms / 1000).toFixed(1) + " s";
    const s = Math.round(ms / 1000);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  class Viewer {
    // options.live: a game being played (live.js): one frame, the table as every seat sees
    // it (hands are backs), no stepping; update() draws the next state.
    constructor(root, data, options) {
      this.root = root;
      this.data = data;
      this.live = !!(options && options.live);
      this.index = 0;
      this.view = "all";
      this.timer = null;
      this.speed = 900;
      this.build();
      if (this.live) {
        this.render();
        return;
      }
      const seat = /(?:^|[#&])seat=(\d+)/.exec(location.hash);
      if (seat && Number(seat[1]) < data.players.length) {
        this.view = seat[1];
        this.viewSel.value = seat[1];
      }
      const m = /(?:^|[#&])f=(\d+)/.exec(location.hash);
      this.go(m ? Number(m[1]) : 0);
    }

    // The seat whose view is shown, or null for every hand.
    seatView() {
      return this.view === "all" ? null : Number(this.view);
    }

    // The frame where a fault is shown: the move it happened at (later ones on the deal's last).
    faultFrame(fault) {
      const deal = this.data.deals[fault.deal];
      if (!deal) return 0;
      return Math.max(0, Math.min(deal.first_frame + fault.move + 1, deal.last_frame));
    }

    sideName(side) {
      const d = this.data;
      const names = [];
      d.side_of.forEach((s, seat) => { if (s === side) names.push(d.players[seat]); });
      return names.join(" & ") || "side " + side;
    }

    sideShort(side) {
      const d = this.data;
      if (!d.partners) return d.players[side];
      const seats = [];
      d.side_of.forEach((s, seat) => { if (s === side) seats.push(seat); });
      return "Seats " + seats.join("+");
    }

    build() {
      const d = this.data;
      this.root.textContent = "";
      this.root.classList.add("viewer");
      const btn = (act, label, title) => {
        const b = h("button", { type: "button", class: "v-btn", "data-act": act, title: title,
                                "aria-label": title });
        b.innerHTML = ICONS[label] || label;
        return b;
      };
      this.playBtn = btn("play", "play", "Play / pause (space)");
      this.scrub = h("input", { type: "range", min: 0, max: d.frames.length - 1, value: 0,
                                class: "v-scrub", "aria-label": "Position in the game" });
      this.pos = h("span", { class: "v-pos", "aria-live": "polite" });
      this.viewSel = h("select", { class: "v-view", "aria-label": "Whose cards to show" },
        h("option", { value: "all", text: "All hands" }),
        ...d.players.map((p, seat) =>
          h("option", { value: String(seat), text: "As seat " + seat + " saw (" + p + ")" })));
      this.speedSel = h("select", { class: "v-speed", "aria-label": "Playback speed" },
        h("option", { value: "1600", text: "Slow" }),
        h("option", { value: "900", text: "Normal", selected: "selected" }),
        h("option", { value: "350", text: "Fast" }));
      const controls = h("div", { class: "v-controls" },
        btn("first", "first", "Start of the game (Home)"),
        btn("prevdeal", "«", "Previous deal (Page Up)"),
        btn("prev", "‹", "Back one move (←)"),
        this.playBtn,
        btn("next", "›", "Forward one move (→)"),
        btn("nextdeal", "»", "Next deal (Page Down)"),
        btn("last", "last", "End of the game (End)"));
      controls.querySelector('[data-act="play"]').classList.add("v-play");
      const toolbar = this.live
        ? h("div", { class: "v-toolbar v-live-bar" },
            h("span", { class: "badge running v-live-badge", text: "live" }), this.pos)
        : h("div", { class: "v-toolbar" }, controls, this.scrub,
          h("div", { class: "v-options" }, this.pos, this.viewSel, this.speedSel));
      this.board = h("div", { class: "v-board seats-" + d.players.length });
      this.seats = d.players.map((name, seat) => {
        const hand = h("div", { class: "v-hand" });
        const clock = h("span", { class: "v-clock", title: "Time bank left" });
        const think = h("span", { class: "v-think", title: "Thinking time of the last move" });
        const stats = h("span", { class: "v-stats" });
        const badge = h("span", { class: "v-dealer", text: "dealer" });
        const box = h("section", { class: "v-seat", "data-seat": String(seat) },
          h("header", {},
            h("span", { class: "v-seatno side-" + d.side_of[seat], text: "Seat " + seat }),
            h("strong", { class: "v-name", text: name }), badge, clock, think, stats),
          hand);
        this.board.append(box);
        return { box, hand, clock, think, stats, badge };
      });
      this.table = h("div", { class: "v-table", "aria-label": "Table" });
      this.event = h("div", { class: "v-event", "aria-live": "polite" });
      this.stock = h("div", { class: "v-stock" });
      this.center = h("div", { class: "v-center" }, this.stock, this.table, this.event);
      this.board.append(this.center);
      this.score = h("div", { class: "v-score" });
      this.faults = h("div", { class: "v-faults" });
      this.log = h("ol", { class: "v-log" });
      this.logTitle = h("h3", { text: "Moves of this deal" });
      const side = h("aside", { class: "v-side" }, this.score, this.faults, this.logTitle,
        this.log);
      const main = h("div", { class: "v-main" }, this.board, side);
      this.root.append(toolbar, main);
      if (d.error) {
        this.root.prepend(h("p", { class: "notice error",
          text: "This replay stops early: " + (d.error.reason || "it does not verify") +
                (d.error.deal != null ? " (deal " + (d.error.deal + 1) +
                  (d.error.move != null ? ", move " + (d.error.move + 1) : "") + ")" : "") }));
      }

      // Clicking a button must not leave the focus on it: space is play/pause, not "click
      // the last button again".
      toolbar.addEventListener("mousedown", (e) => {
        if (e.target.closest("button")) e.preventDefault();
      });
      toolbar.addEventListener("click", (e) => {
        const b = e.target.closest("button[data-act]");
        if (b) this.act(b.dataset.act);
      });
      this.scrub.addEventListener("input", () => this.go(Number(this.scrub.value)));
      this.viewSel.addEventListener("change", () => {
        this.view = this.viewSel.value;
        this.viewSel.blur();  // the arrow keys step through the game again
        this.render();
      });
      this.speedSel.addEventListener("change", () => {
        this.speed = Number(this.speedSel.value);
        this.speedSel.blur();
        if (this.timer) { this.pause(); this.play(); }
      });
      this.log.addEventListener("click", (e) => {
        const li = e.target.closest("li[data-frame]");
        if (li) this.go(Number(li.dataset.frame));
      });
      this.faults.addEventListener("click", (e) => {
        const li = e.target.closest("li[data-frame]");
        if (li) this.go(Number(li.dataset.frame));
      });
      if (this.live) {
        // A live log that its reader scrolled back (to an earlier deal) stays where it is as
        // moves come in; one left at its end follows the newest move.
        this.following = true;
        this.log.addEventListener("scroll", () => {
          const log = this.log;
          this.following = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
        });
        // The moves' names wrap on a narrow screen: when the log's width changes (a phone
        // turned, a window resized), a log that follows keeps the newest move in view.
        if (window.ResizeObserver) {
          new ResizeObserver(() => {
            if (this.following) this.log.scrollTop = this.log.scrollHeight;
          }).observe(this.log);
        }
        return;
      }
      document.addEventListener("keydown", (e) => this.key(e));
      this.swipes(this.board);
    }

    // The next state of a live game (same players): redrawn in place.
    update(data) {
      this.data = data;
      this.render();
    }

    // A horizontal swipe across the table steps one move (left: forward, right: back). The
    // board lets the browser scroll the page vertically (touch-action: pan-y in the CSS), so
    // only sideways strokes reach here.
    swipes(area) {
      let start = null;
      area.addEventListener("pointerdown", (e) => {
        if (e.pointerType === "mouse" || !e.isPrimary) return;
        start = { x: e.clientX, y: e.clientY };
      });
      area.addEventListener("pointercancel", () => { start = null; });
      area.addEventListener("pointerup", (e) => {
        if (!start) return;
        const dx = e.clientX - start.x;
        const dy = e.clientY - start.y;
        start = null;
        if (Math.abs(dx) < 40 || Math.abs(dx) < 1.5 * Math.abs(dy)) return;
        this.act(dx < 0 ? "next" : "prev");
      });
    }

    key(e) {
      const t = e.target;
      if (t && (t.tagName === "INPUT" && t.type !== "range" || t.tagName === "TEXTAREA" ||
                t.tagName === "SELECT")) return;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const map = { ArrowLeft: "prev", ArrowRight: "next", " ": "play", Home: "first",
                    End: "last", PageUp: "prevdeal", PageDown: "nextdeal" };
      const act = map[e.key];
      if (!act) return;
      e.preventDefault();
      this.act(act);
    }

    act(act) {
      const d = this.data;
      const frame = d.frames[this.index];
      if (act !== "play") this.pause();
      if (act === "prev") this.go(this.index - 1);
      else if (act === "next") this.go(this.index + 1);
      else if (act === "first") this.go(0);
      else if (act === "last") this.go(d.frames.length - 1);
      else if (act === "prevdeal") {
        const deal = d.deals[frame.deal];
        this.go(this.index > deal.first_frame ? deal.first_frame
          : (d.deals[frame.deal - 1] || deal).first_frame);
      } else if (act === "nextdeal") {
        const next = d.deals[frame.deal + 1];
        this.go(next ? next.first_frame : d.frames.length - 1);
      } else if (act === "play") {
        if (this.timer) this.pause(); else this.play();
      }
    }

    play() {
      if (this.index >= this.data.frames.length - 1) this.go(0);
      this.playBtn.innerHTML = ICONS.pause;
      this.playBtn.classList.add("playing");
      this.root.classList.add("is-playing");
      this.timer = setInterval(() => {
        if (this.index >= this.data.frames.length - 1) this.pause();
        else this.go(this.index + 1);
      }, this.speed);
    }

    pause() {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      this.playBtn.innerHTML = ICONS.play;
      this.playBtn.classList.remove("playing");
      this.root.classList.remove("is-playing");
    }

    go(i) {
      const n = this.data.frames.length;
      this.index = Math.max(0, Math.min(n - 1, i));
      this.render();
    }

    // The step (and the seat whose view is shown) go in the address, to share or reload.
    remember() {
      if (this.live) return;
      const seat = this.seatView();
      const hash = "#f=" + this.index + (seat == null ? "" : "&seat=" + seat);
      if (history.replaceState) history.replaceState(null, "", hash);
    }

    render() {
      const d = this.data;
      const f = d.frames[this.index];
      const deal = d.deals[f.deal];
      const seats = d.players.length;
      const own = this.seatView();
      this.scrub.value = String(this.index);
      this.root.dataset.frame = String(this.index);
      this.root.classList.toggle("seat-view", own != null);
      // A seat does not know how many deals the game will last, nor whether this deal ends
      // early (a forfeit): its position names no totals, and the scrubber (whose end is the
      // end of the game) is hidden.
      this.pos.textContent = this.live
        ? (d.live_title ? d.live_title + " · " : "") + "deal " + (f.deal + 1) + " · move " + f.step
        : own == null
          ? "Deal " + (f.deal + 1) + "/" + d.deals.length + " · move " + f.step + "/" + deal.moves
          : "Deal " + (f.deal + 1) + " · move " + f.step;
      this.scrub.hidden = own != null;
      for (const node of document.querySelectorAll("[data-spoiler]")) node.hidden = own != null;
      this.remember();

      const bottom = own == null ? 0 : own;
      const places = PLACES[seats] || PLACES[4];
      this.seats.forEach((s, seat) => {
        s.box.dataset.place = places[(seat - bottom + seats) % seats];
        s.box.classList.toggle("to-move", f.to_move === seat);
        s.box.classList.toggle("just-moved", !!f.move && f.move.seat === seat);
        s.badge.hidden = f.dealer !== seat;
        s.clock.textContent = f.clocks[seat] != null ? "bank " + seconds(f.clocks[seat]) : "";
        s.think.textContent = f.move && f.move.seat === seat && f.move.ms != null
          ? "thought " + f.move.ms + " ms" : "";
        const side = d.side_of[seat];
        s.stats.textContent = f.captured[side] + " taken" +
          (f.scope[side] ? " · " + f.scope[side] + " scop" + (f.scope[side] > 1 ? "e" : "a")
            : "");
        s.hand.textContent = "";
        // A live game's hands are nulls: their backs, as every seat sees them.
        const visible = (own == null || own === seat) && f.hands[seat].every((c) => c != null);
        s.box.classList.toggle("hidden-hand", !visible);
        for (const c of f.hands[seat]) s.hand.append(visible ? C.card(c) : C.back());
        if (!f.hands[seat].length) s.hand.append(h("span", { class: "v-empty",
                                                             text: "no cards" }));
      });

      this.stock.textContent = f.stock ? "Stock: " + f.stock + " cards" : "";
      this.table.textContent = "";
      for (const c of f.table) this.table.append(C.card(c));
      if (!f.table.length) this.table.append(h("span", { class: "v-empty", text: "empty table" }));

      this.renderEvent(f);
      this.renderScore(f, deal);
      this.renderFaults();
      this.renderLog(deal);
    }

    renderEvent(f) {
      const d = this.data;
      this.event.textContent = "";
      this.event.className = "v-event";
      if (!f.move) {
        this.event.append(h("p", { class: "v-what", text: "Deal " + (f.deal + 1) +
          " dealt by seat " + f.dealer + " (" + d.players[f.dealer] + ")" +
          (d.deals[f.deal].thrown_in ? " after a redeal" : "") +
          ". Seat " + f.to_move + " leads." }));
      } else {
        const m = f.move;
        const who = "Seat " + m.seat + " (" + d.players[m.seat] + ")";
        const played = h("div", { class: "v-play-cards" }, C.card(m.card));
        let text;
        if (m.capture.length) {
          played.append(h("span", { class: "v-takes", text: "takes" }));
          for (const c of m.capture) played.append(C.card(c));
          text = who + " plays " + C.label(m.card) + " and takes " +
            m.capture.map(C.label).join(" + ");
          this.event.classList.add("capture");
        } else {
          text = who + " lays down " + C.label(m.card);
        }
        this.event.append(h("p", { class: "v-what", text: text }), played);
        if (m.scopa) {
          this.event.classList.add("scopa");
          this.event.append(h("p", { class: "v-scopa", text: "Scopa!" }));
        }
        if (m.auto) this.event.append(h("p", { class: "v-auto",
          text: "Played by the arena (" + m.auto + ")" }));
        if (m.leftover.length) {
          this.event.append(h("p", { class: "v-leftover", text: "The last cards on the table (" +
            m.leftover.map(C.label).join(", ") + ") go to " + this.sideName(m.leftover_side) +
            ", who captured last." }));
        }
      }
      for (const fault of f.faults) {
        this.event.append(h("p", { class: "v-fault", text: "Fault · " + fault.kind + " · seat " +
          fault.seat + (fault.detail ? ": " + fault.detail : "") }));
      }
      if (!this.live && this.index === d.frames.length - 1) this.event.append(this.resultLine());
    }

    resultLine() {
      const d = this.data;
      const r = d.result || {};
      let text;
      if (r.void) text = "Void game: " + r.void + ". It counts for nobody.";
      else if (r.forfeit) text = this.sideName(r.forfeit.side) + " forfeit (" +
        r.forfeit.reason + ")" + (d.winner != null ? "; " + this.sideName(d.winner) + " wins."
          : ".");
      else if (d.winner != null) text = this.sideName(d.winner) +
        (d.partners ? " win the game." : " wins the game.");
      else text = "The game is not finished.";
      return h("p", { class: "v-result", text: text });
    }

    renderScore(f, deal) {
      const d = this.data;
      this.score.textContent = "";
      const sides = [...Array(d.sides).keys()];
      const head = h("tr", {}, h("th", { text: "" }),
        ...sides.map((s) => h("th", { scope: "col", class: "side-" + s, title: this.sideName(s),
                                      text: this.sideShort(s) })));
      if (!f.score) {
        this.score.append(h("h3", { text: "Game score" }),
          h("table", { class: "v-totals" }, h("thead", {}, head),
            h("tbody", {}, h("tr", {}, h("th", { scope: "row", text: "Before this deal" }),
              ...sides.map((s) => h("td", { text: String(f.totals[s]) }))))));
        return;
      }
      const rows = pointCategories().filter((c) =>
        !c.optional || f.score.points.some((p) => p[c.key]));
      const body = h("tbody", {},
        ...rows.map((c) => h("tr", {},
          h("th", { scope: "row", text: c.label, title: c.meaning, abbr: c.abbreviation }),
          ...sides.map((s) => h("td", { text: String(f.score.points[s][c.key] || 0) })))),
        h("tr", { class: "v-deal-total" }, h("th", { scope: "row", text: "Deal total" }),
          ...sides.map((s) => h("td", { text: String(f.score.points[s].total) }))),
        h("tr", { class: "v-game-total" }, h("th", { scope: "row", text: "Game total" }),
          ...sides.map((s) => h("td", { text: String(f.score.totals[s]) }))));
      this.score.append(h("h3", { text: "Score of deal " + (deal.index + 1) }),
        h("table", { class: "v-breakdown" }, h("thead", {}, head), body));
      if (f.score.cappotto != null) {
        this.score.append(h("p", { class: "v-scopa", text: "Cappotto! " +
          this.sideName(f.score.cappotto) + " took all ten coins." }));
      }
    }

    renderFaults() {
      const d = this.data;
      this.faults.textContent = "";
      // A seat knows of a fault once it has happened.
      const shown = d.faults.filter((fault) =>
        this.seatView() == null || this.faultFrame(fault) <= this.index);
      if (!shown.length) return;
      const list = h("ul", {});
      for (const fault of shown) {
        list.append(h("li", { "data-frame": String(this.faultFrame(fault)), class: "v-fault-item",
          text: "Deal " + (fault.deal + 1) + ", move " + (fault.move + 1) + ": " + fault.kind +
            " by seat " + fault.seat + (fault.detail ? " (" + fault.detail + ")" : "") }));
      }
      this.faults.append(h("h3", { text: "Faults (" + shown.length + ")" }), list);
    }

    renderLog(deal) {
      const d = this.data;
      const log = this.log;
      const kept = log.scrollTop;
      log.textContent = "";
      // Every move of the deal, or in a seat's view only those played up to this step.
      const seatView = this.seatView() != null;
      const last = seatView ? Math.min(this.index, deal.last_frame) : deal.last_frame;
      this.logTitle.textContent = seatView || this.live ? "Moves so far" : "Moves of this deal";
      // A live game lists every deal's moves so far (live_log, oldest first, each deal under
      // its heading); a replay its frames' moves.
      const entries = this.live
        ? (d.live_log || []).map((m) => ({ frame: 0, step: m.move + 1, move: m, faults: [] }))
        : [];
      if (!this.live) {
        for (let i = deal.first_frame + 1; i <= last; i++) {
          if (d.frames[i].move) entries.push({ frame: i, step: d.frames[i].step,
                                               move: d.frames[i].move, faults: d.frames[i].faults });
        }
      }
      const newest = entries.length - 1;
      entries.forEach((e, k) => {
        const m = e.move;
        if (this.live && (k === 0 || entries[k - 1].move.deal !== m.deal)) {
          this.log.append(h("li", { class: "v-log-deal", text: "Deal " + (m.deal + 1) }));
        }
        const current = this.live ? k === newest : e.frame === this.index;
        // The cards by name, as Play and the CLI say them ("Sette di spade takes Quattro di
        // denari, Tre di spade"); the short code ("7s × 4d+3s") is the line's title.
        const code = m.card + (m.capture.length ? " × " + m.capture.join("+") : "");
        const li = h("li", { "data-frame": String(e.frame), "data-move": code, title: code,
          class: (current ? "current " : "") + (m.scopa ? "scopa " : "") +
                 (e.faults.length ? "fault" : "") },
          h("span", { class: "v-log-no", text: String(e.step) }),
          h("span", { class: "v-log-seat side-" + d.side_of[m.seat], text: String(m.seat),
                      title: "seat " + m.seat }),
          " " + C.label(m.card) +
          (m.capture.length ? " takes " + m.capture.map(C.label).join(", ") : "") +
          (m.scopa ? " ★" : ""));
        this.log.append(li);
      });
      if (this.live) {
        log.scrollTop = this.following ? log.scrollHeight : kept;
        return;
      }
      // Scroll the list itself (never the page) to keep the current move in view.
      const cur = this.log.querySelector(".current");
      if (cur) {
        const top = cur.offsetTop;
        const view = this.log.scrollTop;
        if (top < view || top + cur.offsetHeight > view + this.log.clientHeight) {
          this.log.scrollTop = Math.max(0, top - this.log.clientHeight / 2);
        }
      }
    }
  }

  async function load(root) {
    const url = root.dataset.framesUrl;
    root.textContent = "Loading the game…";
    try {
      const res = await fetch(url, { headers: { Accept: "application/json" } });
      const body = await res.json();
      if (!res.ok) throw new Error(body.error || res.statusText);
      root.viewer = new Viewer(root, body);
    } catch (err) {
      root.textContent = "";
      root.append(h("p", { class: "notice error", text: "Cannot show this replay: " +
        err.message }));
    }
  }

  window.ScopaViewer = { Viewer: Viewer, load: load };

  function start() {
    for (const root of document.querySelectorAll("[data-frames-url]")) load(root);
    // The "open a replay file" page: the file is expanded by the server, never stored.
    const form = document.getElementById("replay-open");
    if (form) {
      form.addEventListener("change", async () => {
        const input = form.querySelector("input[type=file]");
        const out = document.getElementById("replay-open-viewer");
        if (!input.files.length) return;
        const text = await input.files[0].text();
        const res = await fetch(form.action, { method: "POST", body: text,
          headers: { "Content-Type": "application/json" } });
        const body = await res.json();
        out.textContent = "";
        if (!res.ok) {
          out.append(h("p", { class: "notice error", text: body.error || "not a replay" }));
          return;
        }
        out.viewer = new Viewer(out, body);
      });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
