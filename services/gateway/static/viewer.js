// The spectator and replay viewer (the tournament page is tournament.js, its organiser's
// desk desk.js, playing a seat play.js). Live: ListMatches, then GetView (the spectator view,
// never a token) and the WatchMatch stream. Replay: the gateway verifies an export and sends
// back public frames only (services/gateway/replays.py).
import { unary } from "/static/connect.js";
import { drawBoard } from "/static/boards.js";
import * as tournaments from "/static/tournament.js";
import * as play from "/static/play.js";
import * as player from "/static/player.js";
import * as desk from "/static/desk.js";
import {
  $, rules, status, showStatusOf, gameInfo, describeOutcome, drawClocks, tickClocks, logEvent, coalesced, followMatch,
} from "/static/common.js";

let watching = null;
let clockTimer = null;
let shown = "live";  // the page (tab) on screen
const liveStatus = (text) => status(text, "live");
const replayStatus = (text) => status(text, "replay");

// -- live ------------------------------------------------------------------------------------
async function listMatches() {
  const game = $("game-select").value;
  if (!game) return;
  const list = $("match-list");
  list.replaceChildren();
  try {
    const answer = await unary(rules(game, "ListMatches"), { limit: 50 });
    for (const m of answer.matches || []) {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.matchId = m.matchId;
      button.dataset.status = m.status;
      const state = m.abandoned ? "abandoned" : m.status === "MATCH_STATUS_ENDED" ? "ended" : m.status === "MATCH_STATUS_RUNNING" ? "live" : "waiting";
      button.textContent = `${m.mode} · ${m.seats} seats · ${state} · v${m.version} · ${m.matchId}`;
      button.addEventListener("click", () => watch(game, m.matchId));
      li.append(button);
      list.append(li);
    }
    const count = (answer.matches || []).length;
    liveStatus(`${count} match${count === 1 ? "" : "es"} of ${game}`);
  } catch (err) {
    liveStatus(`could not list matches: ${err.message}`);
  }
}

async function refreshView(game, matchId, token) {
  const view = await unary(rules(game, "GetView"), { matchId });
  if (token !== watching) return view;
  const { content } = await gameInfo(game);
  $("board").replaceChildren(drawBoard(game, view.viewJson ? JSON.parse(view.viewJson) : null, content));
  drawClocks($("clocks"), view.clocks);
  if (view.outcomeJson) {
    $("outcome").hidden = false;
    $("outcome").textContent = describeOutcome(JSON.parse(view.outcomeJson), view.seats);
  }
  return view;
}

// A link to a match this game does not have (a mistyped id, another game's match): said in
// the outcome's place, where the match would be, not only in the corner's status line.
function noMatch(game, matchId, err) {
  $("outcome").hidden = false;
  $("outcome").dataset.code = err.code;
  $("outcome").textContent = `There is no match ${matchId} of ${game} here `
    + `(${err.code.toUpperCase()}: ${err.reason}): check the link's match id and game.`;
}

async function watch(game, matchId) {
  if (watching) watching.abort();
  const token = new AbortController();
  watching = token;
  $("log").replaceChildren();
  $("outcome").hidden = true;
  delete $("outcome").dataset.code;
  $("match-title").textContent = `${(await gameInfo(game)).title}: ${matchId}`;
  $("board").dataset.matchId = matchId;
  liveStatus("following the match…");
  const refresh = coalesced(() => refreshView(game, matchId, token), (err) => {
    liveStatus(`view: ${err.message}`);
    if (err.code === "not_found" && token === watching) noMatch(game, matchId, err);
  });
  await refresh();
  // on a phone the list fills the first screens: the match, drawn, is brought into view
  const title = $("match-title");
  if (token === watching && title.getBoundingClientRect().top > innerHeight / 2) title.scrollIntoView({ block: "start" });
  let cut = false;
  try {
    // a stream that is cut (the gateway restarting) is opened again from the last event shown
    await followMatch(game, matchId, "", token.signal, (event) => {
      if (token !== watching) return;
      if (cut) { cut = false; liveStatus("following the match…"); }
      logEvent($("log"), event);
      refresh();
    }, (err) => {
      cut = true;
      if (token === watching) liveStatus(`the stream was cut (${err.reason}); following again…`);
    });
    await refresh.settled();
    const view = await refreshView(game, matchId, token);
    if (token === watching && view.status === "MATCH_STATUS_ENDED") {
      liveStatus("the match is over");
      $("board").dataset.ended = "1";
    }
  } catch (err) {
    if (err.name !== "AbortError" && token === watching) {
      liveStatus(`stream: ${err.message}`);
      if (err.code === "not_found") noMatch(game, matchId, err);
    }
  }
}

// -- replay ----------------------------------------------------------------------------------
let replay = null;
let replayIndex = 0;

function showReplay(report) {
  replay = report;
  replayIndex = 0;
  const v = report.verification || {};
  const box = $("verification");
  box.replaceChildren();
  const head = document.createElement("p");
  head.id = v.ok ? "verify-ok" : "verify-failure";
  head.className = v.ok ? "verify-ok" : "verify-bad";
  head.textContent = v.ok ? "Verified: every check passed" : `Verification FAILED: ${v.failure}`;
  box.append(head);
  const ul = document.createElement("ul");
  for (const check of v.checks || []) {
    const li = document.createElement("li");
    li.textContent = `✔ ${check}`;
    ul.append(li);
  }
  for (const warning of v.warnings || []) {
    const li = document.createElement("li");
    li.textContent = `note: ${warning}`;
    ul.append(li);
  }
  box.append(ul);
  if (report.stopped) {
    const p = document.createElement("p");
    p.className = "verify-bad";
    p.textContent = `Step-through stops: ${report.stopped}`;
    box.append(p);
  }
  drawFrame();
}

async function drawFrame() {
  const frames = (replay && replay.frames) || [];
  if (!frames.length) {
    $("step-label").textContent = "no events to show";
    $("replay-board").replaceChildren();
    return;
  }
  replayIndex = Math.max(0, Math.min(replayIndex, frames.length - 1));
  const frame = frames[replayIndex];
  $("step-label").textContent = `event ${frame.n} of ${frames.length}: ${frame.type}`;
  $("step-label").dataset.n = frame.n;
  let content = {};
  try { content = (await gameInfo(replay.game_id)).content; } catch { /* a game this gateway does not serve */ }
  $("replay-board").replaceChildren(drawBoard(replay.game_id, frame.view, content));
  const log = $("replay-log");
  log.replaceChildren();
  for (const line of frame.text.length ? frame.text : [frame.type]) {
    const li = document.createElement("li");
    li.textContent = line;
    log.append(li);
  }
  const ended = frames.find((f) => f.outcome);
  $("replay-outcome").hidden = !(ended && frame.n >= ended.n);
  if (ended) $("replay-outcome").textContent = describeOutcome(ended.outcome, replay.seats);
}

// A replay the gateway refused: the one open before is put away (its board and "Verified"
// would read as the match asked for), and why it did not open is said where it was.
function notOpened(what, refusal) {
  replay = null;
  const head = document.createElement("p");
  head.id = "verify-failure";
  head.className = "verify-bad";
  head.textContent = `The replay of ${what} did not open: ${refusal.message || refusal.code || "refused"}`;
  $("verification").replaceChildren(head);
  $("replay-board").replaceChildren();
  $("replay-log").replaceChildren();
  $("replay-outcome").hidden = true;
  $("step-label").textContent = "no replay open";
  delete $("step-label").dataset.n;
  replayStatus(`replay: ${refusal.code}: ${refusal.message}`);
}

async function replayFromService() {
  const game = $("replay-game").value;
  const matchId = $("replay-match").value.trim();
  if (!matchId) { replayStatus("enter a finished match id"); return; }
  replayStatus("verifying…");
  const response = await fetch(`/api/games/${encodeURIComponent(game)}/matches/${encodeURIComponent(matchId)}/replay`, { method: "POST" });
  const data = await response.json();
  if (!response.ok) { notOpened(matchId, data); return; }
  replayStatus("replay open");
  showReplay(data);
}

async function replayFromFile(file) {
  replayStatus("verifying…");
  const response = await fetch("/api/replay", { method: "POST", body: await file.arrayBuffer(),
                                                headers: { "Content-Type": "application/octet-stream" } });
  const data = await response.json();
  if (!response.ok) { notOpened(file.name, data); return; }
  replayStatus(`replay of ${file.name} open`);
  showReplay(data);
}

function step(delta) {
  if (!replay) return;
  replayIndex = delta === -Infinity ? 0 : delta === Infinity ? replay.frames.length - 1 : replayIndex + delta;
  drawFrame();
}

// -- set-up ----------------------------------------------------------------------------------
function showPage(name) {
  for (const page of ["live", "replay", "tournament", "play"]) {
    $(page).hidden = page !== name;
    $(`tab-${page}`).classList.toggle("on", page === name);
  }
  shown = name;
  showStatusOf(name);
}

async function main() {
  $("tab-live").addEventListener("click", () => showPage("live"));
  $("tab-replay").addEventListener("click", () => showPage("replay"));
  $("tab-tournament").addEventListener("click", () => { showPage("tournament"); tournaments.listTournaments(); });
  $("tab-play").addEventListener("click", () => { showPage("play"); player.listTournaments($("player-tournament").value); });
  tournaments.setup();
  play.setup();
  $("refresh-matches").addEventListener("click", listMatches);
  $("game-select").addEventListener("change", listMatches);
  $("replay-open").addEventListener("click", () => replayFromService().catch((err) => replayStatus(err.message)));
  $("replay-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (file) replayFromFile(file).catch((err) => replayStatus(err.message));
  });
  $("step-first").addEventListener("click", () => step(-Infinity));
  $("step-prev").addEventListener("click", () => step(-1));
  $("step-next").addEventListener("click", () => step(1));
  $("step-last").addEventListener("click", () => step(Infinity));
  clockTimer = setInterval(() => { tickClocks($("clocks")); tickClocks($("play-clocks")); }, 250);
  const { games } = await (await fetch("/api/games")).json();
  for (const select of [$("game-select"), $("replay-game"), $("play-game")]) {
    for (const game of games) {
      const option = document.createElement("option");
      option.value = game;
      option.textContent = game;
      select.append(option);
    }
  }
  const wanted = new URLSearchParams(location.search);
  player.setup(games, wanted.get("game"));  // "Find a match" starts on the address's game
  desk.setup(games);
  const asked = wanted.get("game");
  const served = !asked || games.includes(asked);  // an unknown game: the list's first, said
  if (asked && served) {
    $("game-select").value = asked;
    $("replay-game").value = asked;
  }
  await listMatches();
  if (!served) liveStatus(`“${asked}” is not a game this server serves (it serves ${games.join(", ")})`);
  if (wanted.has("play") && wanted.get("tournament")) {  // /?tournament=<id>&play: your table
    showPage("play");
    await player.prefillTournament(wanted.get("tournament"));
  } else if (wanted.has("play")) {  // /?game=<game>&match=<id>&play: play a seat (the token is asked for)
    showPage("play");
    play.prefill(wanted.get("game"), wanted.get("match"));
  } else if (wanted.get("match") && served) {
    watch($("game-select").value, wanted.get("match"));
  }
  if (wanted.get("tournament") && !wanted.has("play")) {
    showPage("tournament");
    await tournaments.listTournaments();
    tournaments.follow(wanted.get("tournament"));
  }
  document.body.dataset.ready = "1";
}

main().catch((err) => status(`could not start: ${err.message}`, shown));
export { clockTimer };
