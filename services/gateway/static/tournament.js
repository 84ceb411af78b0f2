// The tournament page: pick a tournament (ListTournaments), then follow it live from the
// WatchTournament stream: each round's pairings and tables (each match linked to the live
// spectator view), the bracket of elimination formats, and the standings with their
// tie-break values (GetStandings, asked again whenever the tournament changes). Public calls
// only: this module never sends a token (the organiser's desk, desk.js, acts with its own,
// and learns what is followed here through onFollowed).
import { ConnectError, serverStream } from "/static/connect.js";
import {
  $, el, short, reconnecting, status as statusOf, TOURNAMENT as SERVICE, tournamentCall as call,
} from "/static/common.js";

const SVG = "http://www.w3.org/2000/svg";

let following = null;
let rounds = new Map();
const status = (text) => statusOf(text, "tournament");  // the Tournaments tab's own status line
const listeners = [];

// `fn(id, tournament, rounds)` whenever the tournament followed changes: at once with a null
// tournament when another is picked, then with each WatchTournament frame and each catch-up
// of its rounds (the rounds known so far, by number).
export function onFollowed(fn) {
  listeners.push(fn);
}

function tell(id, t) {
  for (const fn of listeners) fn(id, t, [...rounds.values()].sort((a, b) => a.number - b.number));
}

function svg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

export function ordinal(n) {
  return `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;
}

function number(value) {
  const n = Number(value);
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

// -- the list --------------------------------------------------------------------------------
// The list is asked first and drawn once the answer is there, in one go: the entries shown
// stay in place (and the list's scrolling with them) while ListTournaments is asked again,
// and an ask that fails leaves them as they are. When asks overlap, only the last one's
// answer is drawn (waiting for an earlier one waits for it). The tournament followed is
// marked (aria-current), and an entry that had the focus keeps it.
let listed = 0;
let latest = null;
// What the lists of tournaments (this page's, the Play tab's) say when there are none.
export const NONE_YET = "No tournaments yet: an organiser creates them (the desk, with an organiser token).";

export function listTournaments() {
  const asked = ++listed;
  latest = drawList(asked);
  return latest;
}

async function drawList(asked) {
  const list = $("tournament-list");
  let answer;
  try {
    answer = await call("ListTournaments", { limit: 50 });
  } catch (err) {
    if (asked !== listed) return latest;
    status(`could not list tournaments: ${err.message}`);
    return null;
  }
  if (asked !== listed) return latest;  // a later ask draws the list
  // the entry with the focus (just clicked, or reached with Tab) gets it back once redrawn
  const focused = list.contains(document.activeElement) ? document.activeElement.dataset.tournamentId : "";
  const found = answer.tournaments || [];
  // none yet: said in the list's place, not an empty box
  if (!found.length) list.replaceChildren(el("li", { class: "none small" }, NONE_YET));
  else list.replaceChildren(...found.map((t) => {
    const button = el("button", { type: "button", "data-tournament-id": t.tournamentId },
      `${t.name || t.tournamentId} · ${t.game} ${t.mode} · ${t.format} · ${t.players} players · `
      + `${short(t.status, "TOURNAMENT_STATUS_")}`);
    button.addEventListener("click", () => follow(t.tournamentId));
    return el("li", {}, button);
  }));
  markFollowed();
  if (focused) list.querySelector(`button[data-tournament-id="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
  status(found.length ? `${found.length} tournament${found.length === 1 ? "" : "s"}` : "no tournaments yet");
}

// The list's entry of the tournament followed marked (aria-current), the others not.
function markFollowed() {
  const id = $("tournament").dataset.tournamentId || "";
  for (const button of $("tournament-list").querySelectorAll("button[data-tournament-id]")) {
    if (button.dataset.tournamentId === id) button.setAttribute("aria-current", "true");
    else button.removeAttribute("aria-current");
  }
}

// -- drawing ---------------------------------------------------------------------------------
function drawHeader(t) {
  let format = {};
  try { format = JSON.parse(t.formatJson || "{}"); } catch { /* shown as is */ }
  $("tournament-title").textContent = t.name || t.tournamentId;
  const planned = t.plannedRounds ? ` of ${t.plannedRounds}` : "";
  $("tournament-meta").textContent = `${t.game} · ${t.mode} · ${format.format || "?"} · `
    + `${(t.players || []).length} players · round ${t.roundsPaired}${planned} · `
    + `${short(t.status, "TOURNAMENT_STATUS_")}${t.reason ? ` (${t.reason})` : ""}`;
  $("tournament").dataset.status = short(t.status, "TOURNAMENT_STATUS_");
}

export function resultText(table) {
  const r = table.result;
  if (!r) return table.abandonedReason ? `abandoned: ${table.abandonedReason}` : "";
  // a result the organiser set (CorrectResult) says so, with its reason
  const kind = r.kind === "correction"
    ? ` (set by hand${r.forfeited ? ", forfeit" : ""}${r.reason ? `: ${r.reason}` : ""})`
    : r.forfeited ? " (forfeit)" : r.kind && !["match", "played"].includes(r.kind) ? ` (${r.kind})` : "";
  return table.seats.map((p, i) => `${p}: ${ordinal(r.placements[i])}`).join(", ") + kind;
}

// The result cell: the result (or why the match was abandoned), then, for a table played
// again (RematchTable), each abandoned match it replaced, oldest first, linked to its replay.
function resultCell(game, table) {
  const parts = [resultText(table)].filter(Boolean);
  for (const e of table.earlier || []) {
    const link = el("a", { class: "earlier", href: `/?game=${encodeURIComponent(game)}&match=${encodeURIComponent(e.matchId)}`,
                           "data-match-id": e.matchId }, e.matchId);
    parts.push([`rematch of `, link, ` (abandoned: ${e.abandonedReason}; again: ${e.rematchReason})`]);
  }
  const cell = el("td", { class: "result" });
  parts.forEach((part, i) => cell.append(...(i ? ["; "] : []), ...[part].flat()));
  return cell;
}

function drawRound(game, round) {
  const rows = (round.tables || []).map((table) => {
    const state = short(table.status, "TABLE_STATUS_");
    const seats = el("td", { class: "seats" });
    table.seats.forEach((player, seat) => {
      const won = table.result && table.result.placements[seat] === 1;
      if (seat) seats.append(table.seats.length === 2 ? " vs " : ", ");
      seats.append(el("span", { class: `seat${won ? " won" : ""}`, "data-player": player }, player));
    });
    const link = table.matchId
      ? el("a", { class: "watch", href: `/?game=${encodeURIComponent(game)}&match=${encodeURIComponent(table.matchId)}`,
                  "data-match-id": table.matchId }, ["done", "abandoned"].includes(state) ? "watch again" : "watch live")
      : "";
    return el("tr", { class: "pairing", "data-table": table.number, "data-status": state },
      el("td", {}, table.bye ? "bye" : `table ${table.number}`), seats,
      el("td", { class: "state" }, state), resultCell(game, table),
      el("td", {}, link));
  });
  const cp = round.checkpoint;
  const note = round.complete && cp
    ? el("p", { class: "small checkpoint" }, `signed checkpoint: Merkle root ${cp.merkleRoot.slice(0, 16)}… over ${cp.leaves} match${cp.leaves === 1 ? "" : "es"}`)
    : el("p", { class: "small" }, $("tournament").dataset.status === "force ended"
      ? "force-ended before this round was complete"
      : (round.tables || []).some((t) => short(t.status, "TABLE_STATUS_") === "abandoned")
        ? "in play; an abandoned table waits for the organiser's correction" : "in play");
  return el("section", { class: "round", "data-round": round.number, "data-complete": round.complete ? "1" : "0" },
    el("h3", {}, `Round ${round.number}`), el("table", { class: "pairings" }, ...rows), note);
}

function drawRounds(game) {
  const box = $("rounds");
  box.replaceChildren(...[...rounds.values()].sort((a, b) => b.number - a.number).map((r) => drawRound(game, r)));
}

// The standings as rows of `table`; the row of player `mine` (if any) marked "mine".
export function fillStandings(table, rows, final, mine = "") {
  table.dataset.final = final ? "1" : "0";
  const names = rows.length ? rows[0].tiebreaks.map((t) => t.name) : [];
  // A tie-break named as a column ("wins") is headed as the tie-break it is, not twice alike.
  const tiebreakHeads = names.map((n) => (n === "wins" ? "wins (tie-break)" : n));
  const head = el("tr", {}, ...["#", "player", "points", "games", "wins", ...tiebreakHeads].map((n) => el("th", {}, n)));
  const body = rows.map((r) => el("tr", { "data-player": r.playerId,
                                          class: [r.dropped ? "dropped" : "", r.playerId === mine ? "mine" : ""].join(" ").trim() },
    el("td", { "data-col": "rank" }, String(r.rank)),
    el("td", { "data-col": "player" }, r.playerId + (r.dropped ? " (dropped)" : "")),
    el("td", { "data-col": "points", "data-value": r.points }, number(r.points)),
    el("td", { "data-col": "games" }, String(r.games)),
    el("td", { "data-col": "wins" }, String(r.wins)),
    ...r.tiebreaks.map((t) => el("td", { "data-col": t.name, "data-value": t.value }, number(t.value)))));
  table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...body));
}

// Where standings are drawn: the ids of the table, of the sentence shown in its place for a
// tournament called off before it started, and of the title above them. The tournament
// page's; the Play tab's are player.js's.
const PAGE_STANDINGS = { table: "standings", none: "standings-none", title: "standings-title" };

// Standings drawn at `where` (the tournament page's by default), the row of player `mine` (if
// any) marked. Final with no rows for a force-ended tournament (`status`, as WatchTournament
// and GetTournament say it): it was called off before it started, and the sentence
// (#standings-none) says so in place of an empty table, for whoever follows it (the desk's
// organiser, a spectator, a player on the Play tab). True when it did.
export function drawStandings(rows, final, status = "", where = PAGE_STANDINGS, mine = "") {
  const table = $(where.table);
  fillStandings(table, rows, final, mine);
  const none = Boolean(final) && !rows.length && short(status, "TOURNAMENT_STATUS_") === "force ended";
  table.hidden = none;
  $(where.none).hidden = !none;
  $(where.title).textContent = final && !none ? "Final standings" : "Standings";
  return none;
}

// The bracket: one column per level of each part (winners, losers, final), a box per match
// with its two players, the winner marked, and a line from each match to the one its winner
// goes to.
export function drawBracket(bracket) {
  const box = $("bracket");
  box.replaceChildren();
  if (!bracket || !bracket.matches) return;
  const W = 190, H = 54, GAP_X = 40, GAP_Y = 14, TOP = 30;
  const parts = ["winners", "losers", "final"];
  const place = new Map();
  let y0 = TOP, width = 0;
  let finalX = 0;
  for (const part of parts.slice(0, 2)) {
    const ms = bracket.matches.filter((m) => m.bracket === part);
    if (!ms.length) continue;
    const levels = [...new Set(ms.map((m) => m.level))].sort((a, b) => a - b);
    const rowsAt = Math.max(...levels.map((l) => ms.filter((m) => m.level === l).length));
    const height = rowsAt * (H + GAP_Y);
    levels.forEach((level, col) => {
      const here = ms.filter((m) => m.level === level);
      here.forEach((m, i) => {
        const slot = height / here.length;
        place.set(m.id, { x: 10 + col * (W + GAP_X), y: y0 + slot * i + (slot - H) / 2 });
      });
      finalX = Math.max(finalX, 10 + (col + 1) * (W + GAP_X));
    });
    y0 += height + TOP;
  }
  const finals = bracket.matches.filter((m) => m.bracket === "final");
  finals.forEach((m, i) => place.set(m.id, { x: finalX + i * (W + GAP_X), y: TOP + 20 }));
  width = Math.max(finalX + finals.length * (W + GAP_X), ...[...place.values()].map((p) => p.x + W + 10));
  const root = svg("svg", { viewBox: `0 0 ${width} ${y0}`, width, height: y0, "data-format": bracket.format,
                             "data-champion": bracket.champion || "" });
  root.append(svg("text", { x: 10, y: 18, class: "label" }, bracket.champion ? `Champion: ${bracket.champion}` : "Bracket"));
  for (const m of bracket.matches) {
    for (const source of m.from || []) {
      const [kind, ref] = source.split(":");
      if (kind !== "winner" || !place.has(ref)) continue;
      const a = place.get(ref), b = place.get(m.id);
      root.append(svg("path", { class: "bracket-line",
        d: `M${a.x + W},${a.y + H / 2} H${(a.x + W + b.x) / 2} V${b.y + H / 2} H${b.x}` }));
    }
  }
  for (const m of bracket.matches) {
    const p = place.get(m.id);
    if (!p) continue;
    const g = svg("g", { class: `bracket-match ${m.status.replace(/ /g, "-")}`, "data-id": m.id,
                         "data-status": m.status, "data-winner": m.winner || "" });
    g.append(svg("rect", { x: p.x, y: p.y, width: W, height: H, rx: 6, class: "panel" }));
    (m.players || [null, null]).forEach((player, i) => {
      const name = player === null ? "…" : player;
      const won = m.winner && player === m.winner;
      g.append(svg("text", { x: p.x + 8, y: p.y + 20 + i * 22, class: `label player${won ? " won" : ""}`,
                             "data-player": player || "" }, name));
    });
    g.append(svg("text", { x: p.x + W - 6, y: p.y + 12, class: "small end" },
                  `${m.id}${m.round ? ` · r${m.round}` : ""}`));
    root.append(g);
  }
  box.append(root);
}

// -- following -------------------------------------------------------------------------------
// `current()`: the tournament as the newest WatchTournament frame has it (its status when the
// standings come).
async function refreshStandings(id, token, current) {
  const answer = await call("GetStandings", { tournamentId: id });
  if (token === following) drawStandings(answer.rows || [], answer.final, current().status);
  return answer;
}

async function catchUp(t, token) {
  const missing = [];
  for (let n = 1; n <= t.roundsPaired; n++) {
    const known = rounds.get(n);
    if (!known || !known.complete) missing.push(n);
  }
  const fetched = await Promise.all(missing.map((n) => call("GetRound", { tournamentId: t.tournamentId, round: n })));
  if (token !== following) return;
  for (const answer of fetched) rounds.set(answer.round.number, answer.round);
}

export async function follow(id) {
  if (following) following.abort();
  const token = new AbortController();
  following = token;
  rounds = new Map();
  $("rounds").replaceChildren();
  $("bracket").replaceChildren();
  drawStandings([], false);
  $("tournament").dataset.tournamentId = id;
  markFollowed();
  $("tournament").dataset.ended = "0";
  history.replaceState(null, "", `/?tournament=${encodeURIComponent(id)}`);
  tell(id, null);
  status("following the tournament…");
  let t = null;
  let pending = null, again = false;
  const refresh = () => {
    if (pending) { again = true; return pending; }
    const current = t;
    pending = Promise.all([catchUp(current, token), refreshStandings(id, token, () => t)])
      .then(() => { if (token === following) { drawRounds(current.game); tell(id, t); } })
      .catch((err) => { if (token === following) status(`tournament: ${err.message}`); })
      .finally(() => { pending = null; if (again) { again = false; refresh(); } });
    return pending;
  };
  // a stream cut (a proxy's timeout, the gateway restarting) is opened again as the live
  // viewer's is (common.js's reconnecting): its count of failures starts again with each frame
  const retry = reconnecting();
  while (token === following) {
    try {
      for await (const frame of serverStream(`${SERVICE}/WatchTournament`, { tournamentId: id }, "", token.signal)) {
        retry.delivered();
        t = frame.tournament;
        drawHeader(t);
        if (frame.round) rounds.set(frame.round.number, frame.round);
        drawRounds(t.game);
        drawBracket(t.bracketJson ? JSON.parse(t.bracketJson) : null);
        tell(id, t);
        refresh();
      }
      if (!t || /FINISHED|FORCE_ENDED/.test(t.status)) break;
      throw new ConnectError("unavailable", "the stream ended before the tournament did");
    } catch (err) {
      if (err.name === "AbortError" || token !== following) return;
      status(`stream: ${err.message}`);
      if (!retry.again(err)) return;
      await retry.wait();
    }
  }
  while (pending) await pending;
  if (!t || token !== following) return;
  await refresh();
  if (token !== following) return;
  $("tournament").dataset.ended = "1";
  await listTournaments();
  status(`the tournament is over (${short(t.status, "TOURNAMENT_STATUS_")})`);
}

export function setup() {
  $("refresh-tournaments").addEventListener("click", listTournaments);
}
