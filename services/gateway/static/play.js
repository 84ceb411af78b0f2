// Playing one seat from the browser, with the seat's own token: GetView (the seat's view, its
// board drawn by boards.js and what only this seat sees listed beside it), the seat's
// decisions as buttons labelled in the game's words, SubmitAction (a fresh command id, the
// view's version as expectedVersion, withText) and the WatchMatch stream with the token (the
// events as this seat may see them); a secret simultaneous pick refused ABORTED (another
// seat picked first) is sent again once at the new version while it is still open to the seat. The decisions come from the page's own SubmitAction
// answer while the view is at the version that answer is of, else from ListLegalActions
// (withText). The token stays in sessionStorage: never in the address, never logged.
// playMatch is also how player.js plays the seats a player token gets from a tournament or
// from matchmaking, so both ways of playing share this one code path.
import { unary, ConnectError } from "/static/connect.js";
import { drawBoard } from "/static/boards.js";
import {
  $, rules, gameInfo, describeOutcome, drawClocks, logEvent, coalesced, randomHex, followMatch,
  reconnecting,
} from "/static/common.js";

const KEY = "neon-play-token";
let session = null;

function decoded(part) {
  const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(b64 + "===".slice((b64.length + 3) % 4)));
}

// The claims of a token, read but not verified (the services verify): a deployment token
// (v1.<base64url JSON>.<signature>) as it is, an identity provider's JWT as a player token
// of its `sub`. To tell a seat token from a player token, fill the match id, name the player.
export function claimsOf(token) {
  const parts = (token || "").split(".");
  if (parts.length !== 3) return null;
  try {
    if (parts[0] === "v1") return decoded(parts[1]);
    const jwt = decoded(parts[1]);
    return typeof jwt.sub === "string" ? { role: "player", player: jwt.sub, exp: jwt.exp } : null;
  } catch {
    return null;
  }
}

export function say(text, code = "") {
  const box = $("play-message");
  box.hidden = !text;
  box.textContent = text;
  box.dataset.code = code;
}

// A refused call in plain words: the status and the service's own reason, and what to do.
export function plain(err, what = "the service") {
  const code = err.code || "unknown";
  const reason = err.reason ?? err.message;
  const why = `(${code.toUpperCase()}: ${reason})`;
  if (code === "unauthenticated") {
    return `Your token was refused ${why}: it is expired, malformed or not from this `
      + "deployment. Paste a fresh token.";
  }
  if (code === "unavailable") {
    return `${what[0].toUpperCase()}${what.slice(1)} does not answer ${why}: the backend is down `
      + "or restarting. Try again in a moment.";
  }
  if (code === "resource_exhausted") return `Too much at once ${why}: close another tab of this page.`;
  return `${code.toUpperCase()}: ${reason}`;
}

function explain(err, s) {
  const code = err.code || "unknown";
  const why = `(${code.toUpperCase()}: ${err.reason ?? err.message})`;
  if (code === "permission_denied") {
    return `This token has no seat in match ${s.matchId} ${why}. A seat token plays only its `
      + "own match; a player token first needs its seat token (from matchmaking or the tournament).";
  }
  if (code === "not_found") return `There is no match ${s.matchId} of ${s.game} here ${why}.`;
  return plain(err, `the rules service of ${s.game}`);
}

function commandId() {
  return `web-${randomHex(12)}`;
}

// -- what only this seat sees: its view where it differs from the spectator's ----------------
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function privateParts(mine, open, path = []) {
  if (same(mine, open)) return [];
  const both = (x) => x && typeof x === "object";
  if (both(mine) && both(open) && Array.isArray(mine) === Array.isArray(open)
      && (!Array.isArray(mine) || mine.length === open.length)) {
    return Object.keys(mine).flatMap((k) => privateParts(mine[k], open[k], [...path, k]));
  }
  return [{ path, value: mine }];
}

// Every named thing of the game's content by its id, at any depth: Neon Reign's tables of
// cards, Neon Knights 2086's lists of implants and bets, Barbaric's skill cards inside each
// character. A level is part of the name (Neon Knights' "Ambition L1" and "Ambition L2").
const namesOf = new WeakMap();
function names(content) {
  if (!namesOf.has(content)) {
    const found = new Map();
    const walk = (node, key) => {
      if (!node || typeof node !== "object") return;
      if (!Array.isArray(node) && typeof node.name === "string") {
        const id = typeof node.id === "string" ? node.id : key;
        const name = Number.isInteger(node.level) ? `${node.name} L${node.level}` : node.name;
        if (typeof id === "string" && !found.has(id)) found.set(id, name);
      }
      for (const [k, v] of Object.entries(node)) walk(v, Array.isArray(node) ? undefined : k);
    };
    walk(content, undefined);
    namesOf.set(content, found);
  }
  return namesOf.get(content);
}

function named(content, value) {
  if (Array.isArray(value)) return value.map((v) => named(content, v)).join(", ") || "nothing";
  if (typeof value === "string") {
    const known = names(content || {});
    // a copy of a card: Barbaric's "pia-pickpocket/2" is the second PICKPOCKET
    return known.get(value) ?? known.get(value.replace(/\/\d+$/, "")) ?? value;
  }
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function drawPrivate(s, view, spectator, content) {
  const box = $("play-private");
  box.replaceChildren();
  if (!view || !spectator || spectator.version !== s.version) return;
  const parts = privateParts(view, spectator.view)
    .filter((p) => !(p.value === s.seat && p.path.length === 1));  // "you": the seat's own number
  if (!parts.length) return;
  const head = document.createElement("h3");
  head.textContent = "Only you see";
  const list = document.createElement("ul");
  list.className = "private";
  for (const { path, value } of parts) {
    const li = document.createElement("li");
    const key = [...path].reverse().find((k) => Number.isNaN(Number(k))) ?? "view";
    li.dataset.path = path.join(".");
    li.title = path.join(" › ");
    li.textContent = `Your ${String(key).replace(/_/g, " ")}: ${named(content, value)}`;
    list.append(li);
  }
  box.append(head, list);
}

// -- the seat's position ---------------------------------------------------------------------
// The seat's decisions (with their words) are those of one match version, s.known: { version,
// decisions }. They come from the page's own SubmitAction (its answer carries them as of
// positionVersion) or from ListLegalActions, and serve every load whose GetView is at that
// very version; a view at any other version (another seat acted, the page was reloaded, the
// answer carried none) asks ListLegalActions, unless the page's own SubmitAction is still on
// its way. A seat's decisions at a version never change.
function know(s, version, decisions) {
  if (s.known && Number(s.known.version) > Number(version)) return;  // an older answer came late
  s.known = { version: String(version), decisions: decisions || [] };
}

// The seat's position SubmitAction's answer carries, or null (ListLegalActions then): the
// version its decisions are of (positionVersion: later than `version` for a repeated command
// answered after the match moved on; 0 from a rules service before 5 December 2026) and the
// decisions, each with its words (withText). All of the seat's decisions at that version, so
// none at all means it owes nothing there (proto: "what this seat owes or may do next").
function answered(answer) {
  const version = Number(answer.positionVersion || 0);
  if (!version || answer.status !== "MATCH_STATUS_RUNNING") return null;
  const decisions = answer.decisions || [];
  const worded = decisions.every((d) => (d.legalText || []).length === (d.legalJson || []).length);
  return worded ? { version, decisions } : null;
}

async function position(s) {
  let view;
  let legal = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    view = await unary(rules(s.game, "GetView"), { matchId: s.matchId }, s.token);
    if (view.viewer < 0) {
      throw new ConnectError("permission_denied", "this token gets only the spectator view: it holds no seat");
    }
    if (view.status !== "MATCH_STATUS_RUNNING") { legal = null; break; }
    if (s.known && s.known.version === String(view.version)) {
      legal = { version: view.version, decisions: s.known.decisions };
      break;
    }
    // the page's own move is being answered: the answer brings the seat's decisions (likely of
    // this very version), and the load after it (submit's refresh) draws them
    if (s.busy) { legal = undefined; break; }
    legal = await unary(rules(s.game, "ListLegalActions"), { matchId: s.matchId, withText: true }, s.token);
    know(s, legal.version, legal.decisions);
    if (legal.version === view.version) break;
  }
  const spectator = await unary(rules(s.game, "GetView"), { matchId: s.matchId });
  return { view, legal, spectator };
}

async function load(s) {
  const { view, legal, spectator } = await position(s);
  if (s !== session) return;
  s.seat = view.viewer;
  s.version = view.version;
  const { content } = await gameInfo(s.game);
  if (s !== session) return;  // stopped (the token forgotten) meanwhile: draw nothing
  const seen = view.viewJson ? JSON.parse(view.viewJson) : null;
  $("play-board").replaceChildren(drawBoard(s.game, seen, content));
  drawPrivate(s, seen, { version: spectator.version, view: spectator.viewJson ? JSON.parse(spectator.viewJson) : null }, content);
  drawClocks($("play-clocks"), view.clocks);
  if (legal !== undefined) drawActions(s, view, legal);  // else the buttons stay, disabled
  if (view.outcomeJson) {
    s.ended = true;
    const outcome = JSON.parse(view.outcomeJson);
    s.outcome = outcome;
    const place = (outcome.placements || [])[s.seat];
    const mine = !place ? "" : place === 1 && !outcome.draw ? `You (seat ${s.seat}) placed 1: you won! `
      : `You (seat ${s.seat}) placed ${place}. `;
    $("play-outcome").hidden = false;
    $("play-outcome").textContent = mine + describeOutcome(outcome, view.seats);
    $("play-board").dataset.ended = "1";
  }
}

function drawActions(s, view, legal) {
  const box = $("play-actions");
  box.replaceChildren();
  box.dataset.version = view.version;
  const decisions = legal ? legal.decisions : [];
  const owed = decisions.filter((d) => !d.standing && d.legalJson.length);
  if (view.status === "MATCH_STATUS_ENDED") {
    $("play-turn").textContent = "The match is over.";
    box.dataset.state = "ended";
    return;
  }
  if (view.status !== "MATCH_STATUS_RUNNING") {
    $("play-turn").textContent = "The match has not started yet (it waits for its seats' seeds).";
    box.dataset.state = "waiting";
    return;
  }
  if (owed.length) {
    $("play-turn").textContent = `Your turn (seat ${s.seat}): ${owed.map((d) => d.prompt || d.kind).join("; ")}`;
  } else {
    const others = (view.pending || []).map((p) => `seat ${p.seat} (${p.kind.replace(/_/g, " ")})`);
    $("play-turn").textContent = `You are seat ${s.seat}. Waiting for ${others.join(", ") || "the match to move"}.`;
  }
  box.dataset.state = s.busy ? "sending" : owed.length ? "ready" : "waiting";
  for (const [k, decision] of decisions.entries()) {
    if (!decision.legalJson.length) continue;
    const group = document.createElement("div");
    group.className = `decision${decision.standing ? " standing" : ""}`;
    const head = document.createElement("h3");
    head.textContent = (decision.prompt || decision.kind.replace(/_/g, " "))
      + (decision.standing ? " (any time)" : decision.optional ? " (optional)" : "");
    group.append(head);
    decision.legalJson.forEach((actionJson, i) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "action";
      button.dataset.decision = k;
      button.dataset.index = i;
      button.disabled = s.busy;
      button.textContent = decision.legalText[i] ?? actionJson;
      const choice = { actionJson, kind: decision.kind, standing: Boolean(decision.standing),
        hidden: Boolean(decision.hidden), text: button.textContent };
      button.addEventListener("click", () => submit(s, choice, view.version));
      group.append(button);
    });
    box.append(group);
  }
}

function send(s, actionJson, version) {
  return unary(rules(s.game, "SubmitAction"),
    { matchId: s.matchId, commandId: commandId(), actionJson, expectedVersion: version, withText: true }, s.token);
}

// The seat's decisions now (ListLegalActions) when the choice clicked, `choice`, is still
// open among them (the same action in a decision of the same kind): their version, to send
// it again at; else null. In simultaneous steps every seat chooses at once, and another
// seat's pick (a bot answers at once) moves the match on between the page's drawing and the
// person's click, mostly leaving this seat's own choices as they were.
async function stillOpen(s, choice) {
  const legal = await unary(rules(s.game, "ListLegalActions"), { matchId: s.matchId, withText: true }, s.token);
  if (s === session) know(s, legal.version, legal.decisions);
  const open = (legal.decisions || []).some((d) => d.kind === choice.kind && Boolean(d.standing) === choice.standing
    && (d.legalJson || []).includes(choice.actionJson));
  return open ? legal.version : null;
}

// The choice clicked sent at the version its buttons were drawn at. Refused ABORTED (the
// match moved on meanwhile): a secret simultaneous choice (a hidden decision: what moved the
// match is another seat's pick, which this seat cannot see) is sent again once, at the new
// version, when it is still open to this seat there; any other is not (the move that came
// first is on the board, and may change the person's mind). The page says whether the
// choice is still open, and shows the choices now.
async function submit(s, choice, version) {
  if (s.busy || s !== session) return;
  s.busy = true;
  $("play-actions").dataset.state = "sending";
  for (const b of $("play-actions").querySelectorAll("button")) b.disabled = true;
  try {
    let answer;
    try {
      answer = await send(s, choice.actionJson, version);
    } catch (err) {
      if (err.code !== "aborted" || s !== session) throw err;
      const now = await stillOpen(s, choice).catch(() => { throw err; });  // not known: as refused
      if (now === null) {
        say(`The match moved on before your move arrived (ABORTED: ${err.reason}), and “${choice.text}” `
          + "is no longer yours to choose. Your actions now are below.", "aborted");
        return;
      }
      if (!choice.hidden) {  // another seat's move is on the board: the person looks again
        say(`The match moved on before your move arrived (ABORTED: ${err.reason}). “${choice.text}” `
          + "is still yours to choose: look at the board, then choose below.", "aborted");
        return;
      }
      answer = await send(s, choice.actionJson, now);
    }
    const next = answered(answer);
    if (next && s === session) know(s, next.version, next.decisions);
    say("");
  } catch (err) {
    if (err.code === "aborted") {
      say(`The match moved on before your move arrived (ABORTED: ${err.reason}). `
        + "Your actions now are below.", err.code);
    } else {
      say(`Your move was refused: ${explain(err, s)}`, err.code || "unknown");
    }
  } finally {
    s.busy = false;
    await s.refresh();
  }
}

// -- starting and following ------------------------------------------------------------------
export function stop() {
  if (session) session.abort.abort();
  session = null;
}

// Ends the seat's play and takes what it showed off the screen: its own view (the hand, "Only
// you see"), its buttons, its events and outcome. When a token is forgotten, nothing the seat
// saw stays on a screen someone else may look at.
export function clear() {
  stop();
  for (const id of ["play-log", "play-board", "play-private", "play-actions", "play-clocks"]) $(id).replaceChildren();
  for (const key of ["ended", "matchId"]) delete $("play-board").dataset[key];
  $("play-actions").dataset.state = "";
  $("play-outcome").hidden = true;
  $("play-outcome").textContent = "";
  $("play-turn").textContent = "";
  $("play-title").textContent = "Paste your token to play";
}

// Plays the seat of `token` in match `matchId` of `game` on this page until the match ends:
// { outcome } (null when it did not end here), { refused } (the error) or { stopped } (the
// page moved on to another match).
export async function playMatch(game, matchId, token) {
  stop();
  const s = {
    game, matchId, token, abort: new AbortController(), seat: null, version: null, busy: false,
    ended: false, outcome: null, known: null,
  };
  session = s;
  for (const id of ["play-log", "play-board", "play-private", "play-actions", "play-clocks"]) $(id).replaceChildren();
  $("play-outcome").hidden = true;
  delete $("play-board").dataset.ended;
  $("play-board").dataset.matchId = matchId;
  $("play-actions").dataset.state = "loading";
  $("play-turn").textContent = "";
  $("play-title").textContent = `${(await gameInfo(game).catch(() => ({ title: game }))).title}: ${matchId}`;
  let refused = null;
  // Once the seat's position was loaded, a load the network or the backend does not answer
  // (a move clicked as the Wi-Fi dropped) is tried again a second later, as a cut stream is
  // (common.js's reconnecting): else its buttons stayed disabled until a reload, no event
  // coming while the other seats wait for this one. The message goes once a load succeeds.
  let loaded = false;
  const lost = reconnecting();
  s.refresh = coalesced(async () => {
    await load(s);
    loaded = true;
    lost.delivered();
    if (s.lost && s === session) { s.lost = false; say(""); }
  }, (err) => {
    if (s !== session) return;
    say(explain(err, s), err.code || "unknown");
    if (!loaded) { refused = err; return; }
    if (!s.retrying && lost.again(err)) {
      s.lost = true;
      s.retrying = true;
      lost.wait().then(() => { s.retrying = false; if (s === session) s.refresh(); });
    }
  });
  await s.refresh();
  // on a phone the forms fill the first screens: the match, drawn, is brought into view
  const title = $("play-title");
  if (s === session && title.getBoundingClientRect().top > innerHeight / 2) title.scrollIntoView({ block: "start" });
  if (refused || s !== session) {
    $("play-actions").dataset.state = "refused";
    return s === session ? { refused } : { stopped: true };
  }
  let cut = false;
  try {
    // a stream that is cut (the gateway restarting) is opened again from the last event shown
    await followMatch(game, matchId, token, s.abort.signal, (event) => {
      if (s !== session) return;
      if (cut) { cut = false; say(""); }
      logEvent($("play-log"), event);
      s.refresh();
    }, (err) => {
      cut = true;
      if (s === session) say(`${plain(err, `the rules service of ${game}`)} Following again…`, "reconnecting");
    });
    await s.refresh.settled();
    await s.refresh();
  } catch (err) {
    if (err.name === "AbortError" || s !== session) return { stopped: true };
    say(explain(err, s), err.code || "unknown");
    return { refused: err };
  }
  return s === session ? { outcome: s.outcome, seat: s.seat } : { stopped: true };
}

// "Play this seat": the seat token pasted on the page.
async function start() {
  stop();
  say("");
  const token = $("play-token").value.trim();
  const claims = claimsOf(token);
  if (!token) { say("Paste your token first."); return; }
  if (claims && claims.role !== "seat") {
    say(`This is a ${claims.role} token${claims.player ? ` (${claims.player})` : ""}: playing a `
      + "seat takes that seat's token, which matchmaking (your ticket's assignment), a tournament "
      + "(MyNextMatch) or CreateMatch gives. With a player token, paste it under “Your player "
      + "token” to play your tournament table or find a match.", "permission_denied");
    return;
  }
  if (!$("play-match").value.trim() && claims) $("play-match").value = claims.match;
  const matchId = $("play-match").value.trim();
  if (!matchId) { say("Enter the match id."); return; }
  await playMatch($("play-game").value, matchId, token);
}

function remember() {
  const token = $("play-token").value.trim();
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}

export function setup() {
  $("play-token").value = sessionStorage.getItem(KEY) || "";
  $("play-token").addEventListener("input", remember);
  $("play-open").addEventListener("click", () => { remember(); start(); });
  $("play-forget").addEventListener("click", () => {
    clear();
    sessionStorage.removeItem(KEY);
    $("play-token").value = "";
    say("The token is forgotten.");
  });
}

// /?game=<game>&match=<id>&play: the match chosen; it starts at once when this tab holds a token.
export function prefill(game, matchId) {
  if (game) $("play-game").value = game;
  if (matchId) $("play-match").value = matchId;
  if ($("play-token").value && matchId) start();
  else $("play-title").textContent = "Paste your token, then press “Play this seat”";
}
