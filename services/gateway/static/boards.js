// Each game's spectator view (its view JSON, see GetGameInfo.view_schema_json) drawn as SVG.
// Only the public view is ever drawn: the page never asks for anything else.

const SVG = "http://www.w3.org/2000/svg";
export const SEAT_COLOURS = ["#ff2bd6", "#19e3ff", "#ffd23f", "#7cff6b", "#ff8a3d", "#b48cff"];

function el(name, attrs = {}, text = undefined) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function svgRoot(width, height, game) {
  return el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, "data-game": game,
                     role: "img", "aria-label": `${game} board` });
}

function star(cx, cy, r, filled) {
  const points = [];
  for (let i = 0; i < 10; i++) {
    const radius = i % 2 ? r * 0.45 : r;
    const angle = Math.PI / 5 * i - Math.PI / 2;
    points.push(`${cx + radius * Math.cos(angle)},${cy + radius * Math.sin(angle)}`);
  }
  return el("polygon", { points: points.join(" "), class: filled ? "star on" : "star off" });
}

function nameOf(content, kind, id) {
  const table = content && content[kind];
  if (Array.isArray(table)) {
    const found = table.find((x) => x.id === id);
    if (found && found.name) return found.name;
  } else if (table && table[id] && table[id].name) {
    return table[id].name;
  }
  return id;
}

// -- Neon Reign: the heroes, their health, shields and stars -------------------------------
function neonReign(view, content) {
  const sides = view.sides || [];
  const svg = svgRoot(320 * Math.max(sides.length, 1) + 20, 260, "neon-reign");
  sides.forEach((side, i) => {
    const x = 20 + i * 320;
    const g = el("g", { class: "hero", "data-seat": i, transform: `translate(${x},20)` });
    const attacking = view.attacker === i;
    g.append(el("rect", { width: 290, height: 220, rx: 14, class: attacking ? "panel active" : "panel",
                          stroke: SEAT_COLOURS[i % SEAT_COLOURS.length] }));
    const hero = side.hero || {};
    g.append(el("text", { x: 16, y: 32, class: "title" }, `${hero.name || hero.id || "hero"}${side.computer ? " (Computer)" : ""}`));
    g.append(el("text", { x: 16, y: 52, class: "small" }, `seat ${i}${attacking ? " · attacking" : ""}`));
    const health = Math.max(0, side.health ?? 0);
    const full = Math.max(health, hero.health ?? 0, 20);
    g.append(el("rect", { x: 16, y: 66, width: 258, height: 18, rx: 4, class: "bar-back" }));
    g.append(el("rect", { x: 16, y: 66, width: 258 * health / full, height: 18, rx: 4, class: "bar-health" }));
    g.append(el("text", { x: 22, y: 80, class: "bar-text", "data-health": health }, `health ${health}`));
    const shields = side.shields ?? 0;
    g.append(el("text", { x: 16, y: 110, class: "label", "data-shields": shields }, `shields ${shields}`));
    for (let s = 0; s < Math.min(shields, 10); s++) {
      g.append(el("path", { d: `M${110 + s * 18},98 l7,-4 l7,4 v8 l-7,5 l-7,-5 z`, class: "shield" }));
    }
    const limit = hero.star_limit ?? 6;
    const stars = side.stars ?? 0;
    g.append(el("text", { x: 16, y: 140, class: "label", "data-stars": stars }, `stars ${stars}/${limit}`));
    for (let s = 0; s < limit; s++) g.append(star(122 + s * 24, 134, 9, s < stars));
    g.append(el("text", { x: 16, y: 170, class: "small" },
      `hand ${side.hand_count ?? "?"} · deck ${side.deck_count ?? "?"} · discard ${(side.discard || []).length}`));
    const played = (view.in_play || []).filter((c) => c.side === i || c.owner === i);
    g.append(el("text", { x: 16, y: 196, class: "small" },
      played.length ? `in play: ${played.map((c) => nameOf(content, "cards", c.card || c.id || c)).join(", ")}` : ""));
    svg.append(g);
  });
  if (view.phase === "over") {
    svg.append(el("text", { x: 20, y: 254, class: "small" }, `game over: ${view.reason || ""}`));
  }
  return svg;
}

// -- NEON: the ring of sectors with fighters, bots and energy ------------------------------
function neon(view, content) {
  const ring = view.ring || [];
  const size = 560;
  const c = size / 2;
  const svg = svgRoot(size, size, "neon");
  svg.append(el("circle", { cx: c, cy: c, r: 200, class: "ring" }));
  const fighters = view.fighters || [];
  ring.forEach((sector, i) => {
    const angle = (2 * Math.PI * i) / Math.max(ring.length, 1) - Math.PI / 2;
    const x = c + 200 * Math.cos(angle);
    const y = c + 200 * Math.sin(angle);
    const g = el("g", { class: "sector", "data-sector": sector.sector });
    g.append(el("circle", { cx: x, cy: y, r: 52, class: `sector-disc class-${sector.class}` }));
    g.append(el("text", { x, y: y - 30, class: "small centre" }, sector.name || `sector ${sector.sector}`));
    if (sector.bot) g.append(el("text", { x, y: y - 16, class: "bot centre", "data-bot": sector.bot }, `bot ${sector.bot}`));
    if (sector.search_tokens) g.append(el("text", { x, y: y + 44, class: "small centre" }, `search ×${sector.search_tokens}`));
    const here = fighters.filter((f) => f.sector === sector.sector && !f.on_ship && !f.eliminated);
    here.forEach((f, k) => {
      const fx = x - 22 + (k % 3) * 22;
      const fy = y + 6 + Math.floor(k / 3) * 22;
      g.append(el("circle", { cx: fx, cy: fy, r: 10, fill: SEAT_COLOURS[f.fighter % SEAT_COLOURS.length],
                              class: "fighter", "data-fighter": f.fighter }));
      g.append(el("text", { x: fx, y: fy + 4, class: "token-text centre" }, f.energy ?? ""));
    });
    svg.append(g);
  });
  const list = el("g", { transform: `translate(${c - 150},${c - 70})` });
  list.append(el("text", { x: 0, y: 0, class: "label" }, `round ${view.round ?? "?"}/${view.rounds ?? "?"} · ${view.phase || ""}`));
  fighters.forEach((f, k) => {
    const hp = (f.health || []).flat().reduce((a, b) => a + b, 0);
    const state = f.eliminated ? "out" : f.on_ship ? "on the ship" : `sector ${f.sector}`;
    list.append(el("text", { x: 0, y: 20 + k * 18, class: "small", fill: SEAT_COLOURS[f.fighter % SEAT_COLOURS.length],
                             "data-energy": f.energy },
      `${f.name}${f.automa ? " (Automa)" : ""}: energy ${f.energy ?? 0}, health ${hp}, ${state}`));
  });
  svg.append(list);
  return svg;
}

// -- Neon Knights: the track with the cars, and each driver's Fan Bets ----------------------
// A Fan Bet's words from the content pack: its name, and its goal and reward ("text" is
// "Name: goal -> reward"; the name is drawn on its own line).
function betWords(content, id) {
  const bets = (content && content.fan_bets) || [];
  const card = Array.isArray(bets) ? bets.find((b) => b.id === id) : null;
  const name = (card && card.name) || id;
  const text = (card && card.text) || "";
  const goal = text.startsWith(`${name}: `) ? text.slice(name.length + 2) : text;
  return { name, goal: goal.replace(" -> ", " → ") };
}

// Only what every viewer may see: the number of a driver's hidden Fan Bets (never their
// names, not even the viewing seat's own: the Play page lists those apart), the bets turned
// face up during the race and the bets won.
const BET_PANEL = 380;
const BET_GAP = 10;

function betLines(p) {
  return (p.bets_up || []).length * 38 + (p.bets_won || []).length * 22;
}

function betPanel(p, content, height) {
  const colour = SEAT_COLOURS[p.seat % SEAT_COLOURS.length];
  const hidden = Array.isArray(p.bets) ? p.bets.length : (p.bets ?? 0);
  const up = p.bets_up || [];
  const won = p.bets_won || [];
  const g = el("g", { class: "bets", "data-seat": p.seat, "data-hidden": hidden,
                      "data-up": up.join(" "), "data-won": won.join(" ") });
  g.append(el("rect", { width: BET_PANEL, height, rx: 12, class: "panel", stroke: colour }));
  g.append(el("text", { x: 14, y: 24, class: "label", fill: colour }, `seat ${p.seat} · Fan Bets${p.out ? " (out)" : ""}`));
  g.append(el("text", { x: 14, y: 46, class: "small bets-hidden" }, `${hidden} hidden`));
  for (let k = 0; k < Math.min(hidden, 8); k++) {
    g.append(el("rect", { x: 80 + k * 14, y: 35, width: 10, height: 14, rx: 2, class: "bet-back" }));
  }
  let y = 58;
  if (!up.length && !won.length) {
    g.append(el("text", { x: 14, y: y + 16, class: "small" }, "none face up"));
  }
  up.forEach((id) => {
    const { name, goal } = betWords(content, id);
    const card = el("g", { class: "bet-up", "data-bet": id, transform: `translate(10,${y})` });
    card.append(el("rect", { width: BET_PANEL - 20, height: 34, rx: 6, class: "bet-card up" }));
    card.append(el("text", { x: 8, y: 14, class: "label bet-name" }, `▲ ${name}`));
    card.append(el("text", { x: BET_PANEL - 30, y: 14, class: "small end" }, "face up · paid after the race"));
    card.append(el("title", {}, `${name}: completed, face up; the reward comes after the race`));
    card.append(el("text", { x: 8, y: 29, class: "small bet-goal" }, goal || "reward after the race"));
    g.append(card);
    y += 38;
  });
  won.forEach((id) => {
    const { name } = betWords(content, id);
    const card = el("g", { class: "bet-won", "data-bet": id, transform: `translate(10,${y})` });
    card.append(el("rect", { width: BET_PANEL - 20, height: 18, rx: 5, class: "bet-card won" }));
    card.append(el("text", { x: 8, y: 13, class: "small bet-name" }, `✔ won: ${name}`));
    g.append(card);
    y += 22;
  });
  return g;
}

function neonKnights(view, content) {
  const rows = view.track_rows || [];
  const players = view.players || [];
  const cell = 26;
  // the Fan Bets, a panel per driver, stacked beside the track under the drivers' lines
  const left = 3 * cell + 30;
  const top = 60 + players.length * 20;
  const heights = players.map((p) => 62 + (betLines(p) || 22));
  const height = Math.max(rows.length * cell + 40, top + heights.reduce((a, b) => a + b + BET_GAP, 0) + 10);
  const width = left + BET_PANEL + 10;
  const svg = svgRoot(width, height, "neon-knights-2086");
  rows.forEach((row, r) => {
    const y = 20 + (rows.length - 1 - r) * cell;
    [...(row.cells || "...")].forEach((ch, lane) => {
      svg.append(el("rect", { x: 10 + lane * cell, y, width: cell - 2, height: cell - 2,
                              class: `track-cell${row.line ? " line" : ""}`, "data-row": r, "data-lane": lane }));
      if (ch !== ".") svg.append(el("text", { x: 10 + lane * cell + cell / 2 - 1, y: y + cell / 2 + 4, class: "small centre" }, ch));
    });
  });
  players.forEach((p) => {
    if (!rows.length) return;
    const r = Math.min(p.row ?? 0, Math.max(rows.length - 1, 0));
    const y = 20 + (rows.length - 1 - r) * cell;
    const shift = (p.seat % 3) * 4;  // cars on one cell stay visible side by side
    svg.append(el("rect", { x: 12 + (p.lane ?? 0) * cell + shift, y: y + 2 + shift, width: cell - 12, height: cell - 12, rx: 4,
                            fill: SEAT_COLOURS[p.seat % SEAT_COLOURS.length], class: "car", "data-car": p.seat }));
  });
  if (!rows.length) {
    svg.append(el("text", { x: 10, y: 16, class: "small" }, "no track laid"));
  }
  const info = el("g", { transform: `translate(${3 * cell + 30},20)` });
  info.append(el("text", { x: 0, y: 10, class: "label" }, `race ${view.race ?? "?"}/${view.races ?? "?"} · day ${view.day ?? "?"} · ${view.phase || ""}`));
  players.forEach((p, k) => {
    info.append(el("text", { x: 0, y: 34 + k * 20, class: "small", fill: SEAT_COLOURS[p.seat % SEAT_COLOURS.length] },
      `seat ${p.seat}: speed ${p.speed ?? 0}, VP ${p.vp ?? 0}, fans ${p.fans ?? 0}, chips ${p.chips ?? 0}${p.out ? " (out)" : ""}`));
  });
  svg.append(info);
  let y = top;
  players.forEach((p, k) => {
    const panel = betPanel(p, content, heights[k]);
    panel.setAttribute("transform", `translate(${left},${y})`);
    svg.append(panel);
    y += heights[k] + BET_GAP;
  });
  return svg;
}

// -- Barbaric: the hex map -----------------------------------------------------------------
function hexDistance([q, r]) {
  return Math.max(Math.abs(q), Math.abs(r), Math.abs(-q - r));
}

function barbaric(view) {
  const players = view.players || [];
  const spots = [...(view.minions || []), ...(view.survivor_tokens || []), ...players.map((p) => p.pos || [0, 0])];
  if (view.monster && view.monster.pos) spots.push(view.monster.pos);
  const radius = Math.max(4, ...spots.map(hexDistance));
  const size = 22;
  const w = Math.sqrt(3) * size;
  const span = (2 * radius + 1) * w + 20;
  const svg = svgRoot(span + 330, span, "barbaric");  // the seats' lines: about 300 px of words
  const cx = span / 2;
  const cy = span / 2;
  const at = ([q, r]) => [cx + w * (q + r / 2), cy + 1.5 * size * r];
  const hex = (x, y) => {
    const pts = [];
    for (let i = 0; i < 6; i++) {
      const a = (Math.PI / 3) * i - Math.PI / 6;
      pts.push(`${x + size * Math.cos(a)},${y + size * Math.sin(a)}`);
    }
    return pts.join(" ");
  };
  for (let q = -radius; q <= radius; q++) {
    for (let r = Math.max(-radius, -q - radius); r <= Math.min(radius, -q + radius); r++) {
      const [x, y] = at([q, r]);
      svg.append(el("polygon", { points: hex(x, y), class: "hex", "data-hex": `${q},${r}` }));
    }
  }
  const mark = (pos, cls, label, extra = {}) => {
    const [x, y] = at(pos);
    svg.append(el("circle", { cx: x, cy: y, r: cls === "monster" ? 14 : 8, class: cls, ...extra }));
    if (label) svg.append(el("text", { x, y: y + 4, class: "token-text centre" }, label));
  };
  if (view.core_at) mark(view.core_at, "core", "");
  (view.survivor_tokens || []).forEach((p) => mark(p, "survivor", ""));
  (view.minions || []).forEach((p) => mark(p, "minion", ""));
  if (view.monster && view.monster.pos) mark(view.monster.pos, "monster", "M", { "data-monster": "1" });
  players.forEach((p) => {
    if (p.pos && !p.eliminated) mark(p.pos, "rider", p.seat, { fill: SEAT_COLOURS[p.seat % SEAT_COLOURS.length], "data-rider": p.seat });
  });
  const info = el("g", { transform: `translate(${span + 10},24)` });
  info.append(el("text", { x: 0, y: 0, class: "label" }, `round ${view.round ?? "?"} · ${view.time || ""} · rage ${view.rage ?? "?"}`));
  players.forEach((p, k) => {
    const res = p.resources || {};
    info.append(el("text", { x: 0, y: 24 + k * 36, class: "small", fill: SEAT_COLOURS[p.seat % SEAT_COLOURS.length] },
      `seat ${p.seat}: ${p.rider || ""} on ${p.gear || ""}`));
    info.append(el("text", { x: 0, y: 40 + k * 36, class: "small" },
      `damage ${p.health_damage ?? 0} · shield ${p.shield_damage ?? 0} · food ${res.food ?? 0} fuel ${res.fuel ?? 0} scrap ${res.scrap ?? 0}`));
  });
  svg.append(info);
  return svg;
}

const RENDERERS = { "neon-reign": neonReign, neon, "neon-knights-2086": neonKnights, barbaric };

// The board of `game` for `view`; a game without a drawing gets its view as a tree of text.
export function drawBoard(game, view, content) {
  const render = RENDERERS[game];
  if (view && render) {
    try {
      return render(view, content || {});
    } catch (err) {
      console.warn(`board of ${game} could not be drawn: ${err}`);
    }
  }
  const pre = document.createElement("pre");
  pre.className = "view-json";
  pre.textContent = view ? JSON.stringify(view, null, 1) : "(the match has not started)";
  return pre;
}
