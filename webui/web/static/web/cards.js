// Italian playing cards drawn as SVG, from the suit and figure symbols of the page (_suits.svg).
// A card is named as everywhere in the arena: rank number then suit letter ("7d", "10s").
// Ranks 1..7 show their pips, Fante (8), Cavallo (9) and Re (10) a figure; every card has a
// corner index so that it stays readable at phone size.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const SUITS = { d: "denari", c: "coppe", b: "bastoni", s: "spade" };
  const RANKS = ["", "Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette",
                 "Fante", "Cavallo", "Re"];
  const INDEX = ["", "A", "2", "3", "4", "5", "6", "7", "F", "C", "R"];
  const COLOURS = { d: "#9a6b00", c: "#b71c1c", b: "#2e6b12", s: "#1f4f8f" };
  // Pip centres on a 60 x 90 card.
  const PIPS = {
    2: [[30, 27], [30, 63]],
    3: [[30, 22], [30, 45], [30, 68]],
    4: [[20, 27], [40, 27], [20, 63], [40, 63]],
    5: [[20, 25], [40, 25], [30, 45], [20, 65], [40, 65]],
    6: [[20, 23], [40, 23], [20, 45], [40, 45], [20, 67], [40, 67]],
    7: [[20, 22], [40, 22], [30, 33.5], [20, 45], [40, 45], [20, 67], [40, 67]],
  };

  function parse(name) {
    const m = /^(10|[1-9])([dcbs])$/.exec(String(name));
    if (!m) throw new Error("not a card: " + name);
    return { rank: Number(m[1]), suit: m[2] };
  }

  function label(name) {
    const c = parse(name);
    return RANKS[c.rank] + " di " + SUITS[c.suit];
  }

  function el(tag, attrs) {
    const node = document.createElementNS(NS, tag);
    for (const k in attrs) node.setAttribute(k, attrs[k]);
    return node;
  }

  function use(id, x, y, size) {
    return el("use", { href: "#" + id, x: x - size / 2, y: y - size / 2,
                       width: size, height: size });
  }

  function frame(extraClass) {
    const svg = el("svg", { viewBox: "0 0 60 90", class: "card " + (extraClass || ""),
                            role: "img" });
    svg.appendChild(el("rect", { x: 1, y: 1, width: 58, height: 88, rx: 6, class: "card-face" }));
    return svg;
  }

  // One card as an <svg class="card">.
  function card(name) {
    const c = parse(name);
    const svg = frame("suit-" + c.suit + " rank-" + c.rank + (c.rank >= 8 ? " figure" : ""));
    svg.dataset.card = name;
    const title = el("title", {});
    title.textContent = label(name) + " (" + name + ")";
    svg.appendChild(title);
    svg.setAttribute("aria-label", label(name));
    const colour = COLOURS[c.suit];
    if (c.rank >= 8) {
      svg.appendChild(el("rect", { x: 6, y: 15, width: 48, height: 60, rx: 4,
                                   class: "card-band" }));
    }
    for (const [x, y, rot] of [[8.5, 15, 0], [51.5, 75, 180]]) {
      const t = el("text", { x: x, y: y, "text-anchor": "middle", fill: colour,
                             class: "card-index",
                             transform: rot ? "rotate(180 " + x + " " + (y - 5) + ")" : "" });
      t.textContent = INDEX[c.rank];
      svg.appendChild(t);
    }
    if (c.rank === 1) {
      svg.appendChild(use("suit-" + c.suit, 30, 45, 36));
    } else if (c.rank <= 7) {
      const size = c.rank <= 4 ? 19 : 16.5;
      for (const [x, y] of PIPS[c.rank]) svg.appendChild(use("suit-" + c.suit, x, y, size));
    } else {
      svg.appendChild(use("fig-" + INDEX[c.rank], 30, 40, 34));
      svg.appendChild(use("suit-" + c.suit, 30, 66, 16));
    }
    return svg;
  }

  // The back of a card (a hidden card in someone else's hand).
  function back() {
    const svg = el("svg", { viewBox: "0 0 60 90", class: "card card-back", role: "img",
                            "aria-label": "hidden card" });
    svg.appendChild(el("rect", { x: 1, y: 1, width: 58, height: 88, rx: 6, fill: "#fff",
                                 stroke: "#9aa4b2" }));
    svg.appendChild(el("rect", { x: 5, y: 5, width: 50, height: 80, rx: 4,
                                 fill: "url(#back-pattern)" }));
    return svg;
  }

  window.ScopaCards = { card: card, back: back, label: label, parse: parse, SUITS: SUITS };

  // Any element with data-cards="7d 1s ..." gets the cards drawn inside it.
  function drawDeclared(root) {
    for (const node of (root || document).querySelectorAll("[data-cards]")) {
      if (node.dataset.drawn) continue;
      node.dataset.drawn = "1";
      for (const name of node.dataset.cards.split(/\s+/).filter(Boolean)) {
        node.appendChild(card(name));
      }
    }
  }
  window.ScopaCards.drawDeclared = drawDeclared;
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => drawDeclared());
  } else {
    drawDeclared();
  }
})();
