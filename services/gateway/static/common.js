// What the pages share: the rules calls' paths, the game's info, the outcome in words, the
// clocks and the event log, and building elements (el) and enum values in words (short).
import { unary, serverStream } from "/static/connect.js";
import { SEAT_COLOURS } from "/static/boards.js";

export const $ = (id) => document.getElementById(id);
const RULES = "neon.rules.v1.RulesService";
export const rules = (game, method) => `/games/${encodeURIComponent(game)}/${RULES}/${method}`;
export const TOURNAMENT = "/neon.tournament.v1.TournamentService";
// A unary call of the tournament service (a token for the calls that need one).
export const tournamentCall = (method, body, token = "", timeoutMs = 0) =>
  unary(`${TOURNAMENT}/${method}`, body, token, timeoutMs);
const info = new Map();

// The header's status line belongs to the view on screen: each view (live, replay,
// tournament, play) keeps its own line, shown while its tab is (showStatusOf on a switch), so
// what one view says (a match list's count, a tournament stream's cut) never reads as
// another's.
const said = new Map();
let onScreen = "live";

export function status(text, view) {
  said.set(view, text);
  if (view === onScreen) $("status").textContent = text;
}

export function showStatusOf(view) {
  onScreen = view;
  $("status").dataset.view = view;
  $("status").textContent = said.get(view) || "";
}

// An element with attributes (`class`, `data-*` as dataset, the rest as attributes) and children.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.dataset[k.slice(5).replace(/-(.)/g, (_, c) => c.toUpperCase())] = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

// An enum value in words: short("TOURNAMENT_STATUS_FORCE_ENDED", "TOURNAMENT_STATUS_") is "force ended".
export const short = (enumValue, prefix) => String(enumValue || "").replace(prefix, "").toLowerCase().replace(/_/g, " ");

// `bytes` random bytes as hex: command ids, ticket ids, client seeds.
export function randomHex(bytes) {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function gameInfo(game) {
  if (!info.has(game)) {
    const answer = await unary(rules(game, "GetGameInfo"));
    info.set(game, { title: answer.title, modes: answer.modes || [], content: JSON.parse(answer.contentJson || "{}") });
  }
  return info.get(game);
}

// The game's modes as the options of `select` (GetGameInfo), each with its seats.
export async function fillModes(select, game) {
  const { modes } = await gameInfo(game);
  select.replaceChildren(...modes.map((m) => el("option", { value: m.name },
    `${m.name} (${m.minSeats === m.maxSeats ? m.minSeats : `${m.minSeats}-${m.maxSeats}`} seats)`)));
}

// The places of the sides the engine plays, from the outcome's breakdown: NEON's Automa
// (`breakdown.automa`: rank and score) and Neon Reign's Computer in Solo
// (`breakdown.computer`: 1st when it won or both fell, its score its health).
export function enginePlaces(outcome) {
  const b = outcome.breakdown || {};
  if (b.automa && Number.isInteger(b.automa.rank)) {
    return [{ place: b.automa.rank, name: "the Automa", score: b.automa.score }];
  }
  if (b.computer === true) {
    const place = b.winner === "computer" || b.winner === "double KO" ? 1 : 2;
    return [{ place, name: "the Computer", score: (b.health || [])[1] }];
  }
  return [];
}

export function describeOutcome(outcome, seats) {
  if (!outcome) return "";
  if (outcome.abandoned === true) {  // AbandonMatch: ended by an organiser with no result
    return `Abandoned by ${outcome.by || "the organiser"}, no result — ${outcome.reason || ""}`;
  }
  const placements = outcome.placements || [];
  const scores = outcome.scores || [];
  const places = [];
  for (let seat = 0; seat < (seats || placements.length); seat++) {
    places.push({ place: placements[seat], name: `seat ${seat}`, score: scores[seat] });
  }
  places.push(...enginePlaces(outcome));
  const lines = places.map((p) => `${p.name}: place ${p.place ?? "?"}, score ${p.score ?? "?"}`);
  const first = places.filter((p) => p.place === 1).map((p) => p.name);
  const head = outcome.draw ? "Draw"
    : first.length ? `Winner${first.length > 1 ? "s" : ""}: ${first.join(", ")}` : "No winner";
  return `${head}${outcome.reason ? ` — ${outcome.reason}` : ""}. ${lines.join("; ")}`;
}

// One span per seat's clock in `box`; tickClocks counts the running one down.
export function drawClocks(box, clocks) {
  box.replaceChildren();
  for (const c of clocks || []) {
    const span = document.createElement("span");
    span.className = `clock${c.running ? " running" : ""}`;
    span.dataset.seat = c.seat;
    span.dataset.deadline = c.running ? c.deadlineUnixMs : "";
    span.dataset.remaining = c.remainingMs;
    span.style.color = SEAT_COLOURS[c.seat % SEAT_COLOURS.length];
    box.append(span);
  }
  tickClocks(box);
}

export function tickClocks(box) {
  for (const span of box.children) {
    const deadline = Number(span.dataset.deadline || 0);
    const left = deadline ? Math.max(0, deadline - Date.now()) : Number(span.dataset.remaining || 0);
    span.textContent = `seat ${span.dataset.seat}: ${(left / 1000).toFixed(1)} s`;
  }
}

// A MatchEvent's lines in words (MatchEvent.text) appended to the list `log`.
export function logEvent(log, event) {
  const texts = (event.text && event.text.length) ? event.text : [event.type];
  for (const line of texts) {
    const li = document.createElement("li");
    li.textContent = line;
    li.dataset.version = event.version;
    log.append(li);
  }
  // the list scrolls to its newest line, never the page: scrollIntoView moved the whole page
  // to the log at every event where the log sits below the board (a phone's one column)
  log.scrollTop = log.scrollHeight;
}

// Calls `load()` at most once at a time; a call asked for meanwhile runs once after it.
export function coalesced(load, onError) {
  let pending = null;
  let again = false;
  const run = () => {
    if (pending) { again = true; return pending; }
    pending = load()
      .catch(onError)
      .finally(() => { pending = null; if (again) { again = false; run(); } });
    return pending;
  };
  run.settled = async () => { while (pending) await pending; };
  return run;
}

export const RECONNECT_FOR = 60_000;  // ms a stream is opened again while nothing answers
export const RECONNECT_TRIES = 20;  // and times at least, in a row
export const STEADY_FOR = 15_000;  // ms a stream stayed open before its cut: not a failure
const RESUMED = new Set(["unavailable", "canceled"]);  // a stream cut, the backend restarting

// When a page opens a followed stream again (followMatch here, tournament.js's
// WatchTournament): after a failure that resumes (`unavailable`, `canceled`: a stream cut by
// a proxy's timeout, the gateway or its backend restarting), a second later, until the stream
// has failed RECONNECT_TRIES times in a row over RECONNECT_FOR with no frame between. A frame
// received (`delivered()`) starts the count again: a stream cut now and then over a day (a
// long tournament, a long match) is followed to its end, however many cuts it takes; so does a
// stream that stayed open STEADY_FOR or longer before its cut, frames or not (a quiet stream
// that a proxy cuts at its idle timeout, over and over, is no failing backend). Any other
// error (an expired token, an unknown match or tournament) is not retried. `now`: the clock.
// The stream is taken to be opened when reconnecting() is made and after each wait().
export function reconnecting(now = () => Date.now()) {
  let failures = 0;
  let lostAt = 0;
  let openedAt = now();
  return {
    delivered() { failures = 0; lostAt = 0; },
    // true when the stream that failed with `err` is to be opened again (wait() first)
    again(err) {
      if (!RESUMED.has(err.code)) return false;
      if (now() - openedAt >= STEADY_FOR) { failures = 0; lostAt = 0; }
      failures += 1;
      lostAt = lostAt || now();
      return failures <= RECONNECT_TRIES || now() - lostAt <= RECONNECT_FOR;
    },
    wait: () => new Promise((resolve) => setTimeout(resolve, 1000)).then(() => { openedAt = now(); }),
  };
}

// Follows `matchId`'s WatchMatch stream (with `token`, or none: the spectator's) until it ends
// at the match's seal, each event once and in order to `each`. A stream that is cut or not
// answered (the gateway or the rules service restarting) is opened again from the last event
// received, as `reconnecting` says; `lost(err)` is told each time. Any other error (an expired
// token, an unknown match), and the last one when it gives up, is thrown, as is the
// AbortError of `signal`.
export async function followMatch(game, matchId, token, signal, each, lost = () => {}) {
  let seen = 0;
  const retry = reconnecting();
  for (;;) {
    try {
      const stream = serverStream(rules(game, "WatchMatch"), { matchId, fromVersion: seen }, token, signal);
      for await (const frame of stream) {
        const event = frame.event || {};
        const version = Number(event.version || 0);
        if (version && version <= seen) continue;  // already shown before the cut
        seen = version || seen;
        retry.delivered();
        each(event);
      }
      return;
    } catch (err) {
      if (err.name === "AbortError" || signal.aborted || !retry.again(err)) throw err;
      lost(err);
      await retry.wait();
    }
  }
}
