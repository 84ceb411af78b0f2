// Playing with a player token (`neon token player ID`, an organiser's, or an identity
// provider's JWT): the page gets the seat tokens a real client gets, and plays each seat with
// play.js's playMatch.
//   A tournament: WatchMyMatches follows the player's table round by round; at a table
//   awaiting its seats, AddClientSeed (random bytes, hex) on the game's rules service with the
//   seat token and ReadyForMatch with the player token; then the match; its result
//   (GetRound); a bye, a rematch (`…-g2`) or an abandoned match as they come; at the end the
//   final standings (GetStandings) with the player's row marked (tournament.js's drawStandings:
//   for a tournament called off before its start, a sentence in place of an empty table).
//   Register, and CheckIn (a separate act: confirms the player is here for the start), while
//   registration is open. As `neon tournament play` does (services/cli/tournament_play.py).
//   Matchmaking: CreateTicket (the player alone, bots allowed in empty seats or not), the
//   WatchTicket stream, AcceptMatch or CancelTicket for a proposed match, CancelTicket to
//   leave the queue, and the seat of the matched ticket's assignment. As `neon queue` does.
// The player token stays in sessionStorage: never in the address, never logged.
import { unary, serverStream, ConnectError } from "/static/connect.js";
import {
  $, el, short, rules, randomHex, fillModes as modesOf, reconnecting, TOURNAMENT,
  tournamentCall as tcall,
} from "/static/common.js";
import { claimsOf, say, plain, playMatch, stop as stopSeat, clear as clearSeat } from "/static/play.js";
import { drawStandings, ordinal, resultText, NONE_YET } from "/static/tournament.js";

const KEY = "neon-player-token";
const MATCHMAKING = "/neon.matchmaking.v1.MatchmakingService";
const ENDED = ["TOURNAMENT_STATUS_FINISHED", "TOURNAMENT_STATUS_FORCE_ENDED"];
// The player's standings (tournament.js's drawStandings): the table, the sentence in its place
// for a tournament called off before it started, the title.
const STANDINGS = { table: "player-standings", none: "player-standings-none", title: "player-standings-title" };
let run = null;  // what the player token is doing now: { kind, abort, ... }

// The player of the token in the field, or null (and the reason said).
function player() {
  const token = $("player-token").value.trim();
  const claims = claimsOf(token);
  if (!token) { say("Paste your player token first."); return null; }
  if (!claims || !claims.player) {
    say("This does not read as a player token (v1.… from `neon token player`, or your identity "
      + "provider's JWT). Paste the token you were given.", "invalid_argument");
    return null;
  }
  if (claims.role !== "player") {
    say(`This is a ${claims.role} token: ${claims.role === "seat"
      ? "paste it under “Or with a seat token” to play that seat" : "playing takes your own player token"}.`,
    "permission_denied");
    return null;
  }
  return { token, id: claims.player };
}

function note(text, state) {
  $("player-status").hidden = false;
  $("player-note").textContent = text;
  $("player-status").dataset.state = state;
}

function begin(kind) {
  stopRun();
  stopSeat();
  say("");
  const who = player();
  if (!who) return null;
  run = { kind, abort: new AbortController(), ...who };
  $("player-status").hidden = false;
  $("player-status").dataset.kind = kind;
  $("player-results").replaceChildren();
  $("player-standings").replaceChildren();
  $("player-standings").hidden = false;
  $("player-standings-none").hidden = true;
  $("player-standings-title").hidden = true;
  $("player-proposal").hidden = true;
  return run;
}

function stopRun() {
  if (run) run.abort.abort();
  run = null;
  $("mm-leave").hidden = true;
}

const live = (r) => r === run && !r.abort.signal.aborted;

// The flow of `r` ends here (the message above says why).
function halt(r) {
  note("Stopped: see the message above.", "error");
  $("mm-leave").hidden = true;
  r.abort.abort();
}

// A failure of `r`'s flow: said in plain words, the flow ended.
function failed(r, err, what) {
  if (err.name === "AbortError" || !live(r)) return;
  say(plain(err, what), err.code || "unknown");
  halt(r);
}

// A server stream, opened again while its service does not answer (it restarts without
// losing anything), when it was cut, or when it ended before `each` said done (a server or a
// proxy that ends it at once, cleanly): as common.js's reconnecting says (the live viewer's
// and the tournament page's policy), a second later, until it failed RECONNECT_TRIES times
// in a row over RECONNECT_FOR with no frame between; each message to `each`, until `each`
// says done.
async function follow(r, path, body, each, what) {
  const retry = reconnecting();
  for (;;) {
    try {
      for await (const frame of serverStream(path, body, r.token, r.abort.signal)) {
        retry.delivered();
        if (await each(frame)) return true;
        if (!live(r)) return false;
      }
      throw new ConnectError("unavailable", "the stream ended early");
    } catch (err) {
      if (err.name === "AbortError" || !live(r)) return false;
      if (!retry.again(err)) throw err;
      note(`${what} does not answer (${err.reason}); trying again…`, "reconnecting");
      await retry.wait();
    }
    if (!live(r)) return false;
  }
}

// -- a tournament ------------------------------------------------------------------------------

// The tournaments to pick from. None yet: one entry says so (not an empty box), and "Go to
// my table" says where tournaments come from; finding a match below needs none.
export async function listTournaments(selected = "") {
  const select = $("player-tournament");
  try {
    const found = (await tcall("ListTournaments", { limit: 50 })).tournaments || [];
    select.replaceChildren(...found.map((t) => el("option", { value: t.tournamentId },
      `${t.name || t.tournamentId} · ${t.game} ${t.mode} · ${short(t.status, "TOURNAMENT_STATUS_")}`)));
    if (!found.length && !selected) select.replaceChildren(el("option", { value: "", "data-none": "1" }, "no tournaments yet"));
  } catch (err) {  // said in the list: a page for a seat token needs no tournament service
    select.replaceChildren(el("option", { value: "", "data-code": err.code || "unknown" },
      `no tournaments: ${plain(err, "the tournament service")}`));
  }
  if (selected && ![...select.options].some((o) => o.value === selected)) {
    select.append(el("option", { value: selected }, selected));
  }
  if (selected) select.value = selected;
}

// "Go to my table", "Register" or "Check in" with no tournament picked: why, in words.
function pickFirst() {
  const none = $("player-tournament").selectedOptions[0]?.dataset.none;
  say(none ? `${NONE_YET} Press “Refresh the list” once there is one; “Find a match” needs none.`
    : "Pick a tournament first.");
}

function registration(t, id) {
  const mine = (t.players || []).find((p) => p.playerId === id);
  return mine && mine.status !== "withdrawn" ? mine.status : "";
}

// A player's status (Player.status: registered, checked-in, playing, dropped) as the page says it.
const STANDING = { registered: "registered (not checked in)", "checked-in": "checked in" };
const standing = (status) => STANDING[status] || status;

// While registration is open: who has checked in (the tournament then starts with the
// checked-in players only), who is registered and may still check in.
function waitingForStart(r) {
  if (r.status === "checked-in") {
    note(`${r.id} is checked in: waiting for the organiser to start the tournament.`, "checked-in");
  } else {
    note(`${r.id} is registered (not checked in): waiting for the organiser to start the tournament. `
      + "Press “Check in” when you are here for the start.", "registered");
  }
}

async function tournamentRun() {
  const tournamentId = $("player-tournament").value;
  if (!tournamentId) { pickFirst(); return; }
  const r = begin("tournament");
  if (!r) return;
  Object.assign(r, { tournamentId, played: new Set(), told: new Set() });
  $("player-register").hidden = true;
  $("player-check-in").hidden = true;
  try {
    const { tournament: t } = await tcall("GetTournament", { tournamentId });
    if (!live(r)) return;
    $("play-title").textContent = `${t.name || t.tournamentId}: ${t.game} ${t.mode}`;
    const status = registration(t, r.id);
    if (!status) {
      const open = t.status === "TOURNAMENT_STATUS_REGISTRATION";
      $("player-register").hidden = !open;
      note(open ? `${r.id} is not registered in ${tournamentId}; registration is open: press “Register”.`
        : `${r.id} is not registered in ${tournamentId} (${short(t.status, "TOURNAMENT_STATUS_")}): `
          + "the organiser registers players.", "not-registered");
      return;
    }
    if (ENDED.includes(t.status)) { await final(r); return; }
    await tcall("MyNextMatch", { tournamentId }, r.token);  // the token's own check
    r.status = status;
    $("player-check-in").hidden = !(status === "registered" && t.status === "TOURNAMENT_STATUS_REGISTRATION");
    note(`${r.id} in ${tournamentId} (${standing(status)}); following your table…`, "following");
    const done = await follow(r, `${TOURNAMENT}/WatchMyMatches`, { tournamentId }, async (frame) => {
      if (ENDED.includes(frame.status)) return true;
      if (frame.status !== "TOURNAMENT_STATUS_REGISTRATION") $("player-check-in").hidden = true;
      if (frame.assignment) await onAssignment(r, frame.assignment);
      else if (frame.status === "TOURNAMENT_STATUS_REGISTRATION") waitingForStart(r);
      else if (await noTable(r)) { r.noMore = true; return true; }
      return false;
    }, "The tournament service");
    if (done && live(r) && !r.noMore) await final(r);
  } catch (err) {
    failed(r, err, "the tournament service");
  }
}

function where(a) {
  return `Round ${a.round}, table ${a.table}`;
}

async function onAssignment(r, a) {
  const state = short(a.status, "TABLE_STATUS_");
  if (a.bye) {
    note(`${where(a)}: a bye (no game this round). Waiting for the next round or the end.`, "bye");
  } else if (state === "paired") {
    note(`${where(a)}: ${a.seats.join(" v ")}; the match is being created.`, "paired");
  } else if (state === "done") {
    await tellResult(r, a);
  } else if (state === "abandoned") {
    const table = await tableOf(r, a);
    note(`${where(a)}: match ${a.matchId} was abandoned (${table.abandonedReason || "no reason"}); `
      + "waiting for the organiser to have the table play again or set its result.", "abandoned");
  } else if (a.matchId && a.seatToken && !r.played.has(a.matchId)) {
    r.played.add(a.matchId);
    await playTable(r, a);
  }
}

async function playTable(r, a) {
  const again = /-g\d+$/.test(a.matchId) ? " (a rematch)" : "";
  const others = a.seats.filter((p, i) => i !== a.seat);
  note(`${where(a)}: you (${r.id}, seat ${a.seat}) play ${others.join(", ")}; match ${a.matchId}${again}.`, "seated");
  if (short(a.status, "TABLE_STATUS_") === "awaiting seats") {
    try {
      await unary(rules(a.game, "AddClientSeed"), { matchId: a.matchId, seed: randomHex(32) }, a.seatToken);
    } catch (err) {
      if (err.code !== "failed_precondition") throw err;  // it started without this seat's seed
    }
    try {
      await tcall("ReadyForMatch", { tournamentId: r.tournamentId, matchId: a.matchId }, r.token);
    } catch (err) {
      if (err.code !== "failed_precondition") throw err;
      note(`${where(a)}: match ${a.matchId} will not start (${err.reason}).`, "abandoned");
      return;
    }
    note(`${where(a)}: you (seat ${a.seat}) play ${others.join(", ")}${again}: seed added, ready. `
      + `Match ${a.matchId} below (it starts when every seat is ready).`, "ready");
  }
  if (!live(r)) return;
  const played = await playMatch(a.game, a.matchId, a.seatToken);
  if (!live(r) || played.stopped) return;
  if (played.refused) { halt(r); return; }  // said by playMatch
  const ended = played.outcome && played.outcome.abandoned ? "was abandoned" : "ended";
  note(`${where(a)}: match ${a.matchId} ${ended}; waiting for the table's result.`, "played");
}

async function tableOf(r, a) {
  const { round } = await tcall("GetRound", { tournamentId: r.tournamentId, round: a.round });
  return round.tables.find((t) => t.number === a.table);
}

async function tellResult(r, a) {
  const key = `${a.round}/${a.table}`;
  if (r.told.has(key)) return;
  r.told.add(key);
  const table = await tableOf(r, a);
  const placements = table.result ? table.result.placements : [];
  const place = placements[table.seats.indexOf(r.id)];
  const text = `${where(a)}: ${resultText(table)}${place ? ` — you placed ${ordinal(place)}` : ""}.`;
  $("player-results").append(el("li", { "data-round": a.round, "data-table": a.table, "data-place": place ?? "" }, text));
  note(`${text} Waiting for the next round or the end.`, "result");
}

// The last round a late entry may join `t` in (its format_json's late_entry_until, in a
// format that takes late entries); 0 when none may.
function lateEntryUntil(t) {
  try {
    const f = JSON.parse(t.formatJson || "{}");
    return ["swiss", "multiplayer"].includes(f.format) ? Number(f.late_entry_until || 0) : 0;
  } catch {
    return 0;
  }
}

// No table for `r` now (the stream says so after each round paired without them): why, from
// the tournament as it is. Dropped, or left out at the start (not checked in) once no late
// entry can add them: no table will come, said so, and the page stops following (true).
// Left out while a late entry still may: said so, waiting. Else: between rounds.
async function noTable(r) {
  const { tournament: t } = await tcall("GetTournament", { tournamentId: r.tournamentId });
  if (!live(r)) return false;
  const status = t.status === "TOURNAMENT_STATUS_RUNNING" ? registration(t, r.id) : "";
  if (status === "dropped") {
    note(`${r.id} was dropped from ${t.tournamentId}: no more tables for you; the rounds you `
      + "played stay in the standings.", "dropped");
    return true;
  }
  if (status === "registered") {
    const until = lateEntryUntil(t);
    if (until && Number(t.roundsPaired || 0) + 1 <= until) {
      note(`${r.id} was left out at the start of ${t.tournamentId} (not checked in); the organiser `
        + `may still add you as a late entry (rounds up to ${until}): waiting.`, "left-out");
      return false;
    }
    note(`${r.id} was left out at the start of ${t.tournamentId} (not checked in) and cannot `
      + "join it now.", "left-out-for-good");
    return true;
  }
  note("No table for you now: waiting for the organiser to pair the next round.", "between-rounds");
  return false;
}

async function final(r) {
  const [{ tournament: t }, standings] = await Promise.all([
    tcall("GetTournament", { tournamentId: r.tournamentId }),
    tcall("GetStandings", { tournamentId: r.tournamentId })]);
  if (!live(r)) return;
  const rows = standings.rows || [];
  // called off before it started: the sentence says there are no standings, not an empty table
  const none = drawStandings(rows, standings.final, t.status, STANDINGS, r.id);
  $("player-standings-title").hidden = false;
  const mine = rows.find((row) => row.playerId === r.id);
  const ended = t.status === "TOURNAMENT_STATUS_FORCE_ENDED" ? "force-ended" : "finished";
  note(`${t.name || t.tournamentId} is ${ended}${t.reason ? ` (${t.reason})` : ""}.`
    + (mine ? ` You (${r.id}) finished ${ordinal(mine.rank)} of ${rows.length}: ${mine.points} `
      + `point${mine.points === 1 ? "" : "s"}, ${mine.wins} of ${mine.games} games won.`
      : none ? "" : ` ${r.id} is not in the standings.`), "final");
  $("player-status").dataset.rank = mine ? mine.rank : "";
}

async function registerRun() {
  const tournamentId = $("player-tournament").value;
  const who = player();
  if (!who || !tournamentId) return;
  try {
    await tcall("Register", { tournamentId, playerId: who.id }, who.token);  // not a check-in
    $("player-register").hidden = true;
    await tournamentRun();
  } catch (err) {
    say(`Registering was refused: ${plain(err, "the tournament service")}`, err.code || "unknown");
  }
}

async function checkInRun() {
  const tournamentId = run && run.kind === "tournament" ? run.tournamentId : $("player-tournament").value;
  const who = player();
  if (!who || !tournamentId) return;
  try {
    await tcall("CheckIn", { tournamentId, playerId: who.id }, who.token);
    $("player-check-in").hidden = true;
    await tournamentRun();
  } catch (err) {
    say(`Checking in was refused: ${plain(err, "the tournament service")}`, err.code || "unknown");
  }
}

// -- matchmaking -------------------------------------------------------------------------------
const mcall = (method, body, token) => unary(`${MATCHMAKING}/${method}`, body, token);

async function fillModes() {
  const game = $("mm-game").value;
  if (!game) return;
  try {
    await modesOf($("mm-mode"), game);
  } catch (err) {
    say(`The modes of ${game} could not be read: ${plain(err, `the rules service of ${game}`)}`, err.code || "unknown");
  }
}

function showProposal(r, ticket) {
  const box = $("player-proposal");
  box.hidden = ticket.status !== "TICKET_STATUS_PROPOSED" || !ticket.assignment;
  if (box.hidden) return;
  const a = ticket.assignment;
  const answered = ticket.accepted.includes(r.id) || r.declined === a.matchId;
  box.dataset.matchId = a.matchId;
  const others = a.seats.filter((s) => s.player !== r.id).map((s) => `${s.player}${s.bot ? " (a bot)" : ""}`);
  $("proposal-text").textContent = `A match of ${a.game} ${a.mode} against ${others.join(", ")}`
    + (answered ? ": accepted, waiting for the others." : ". Accept it?");
  $("mm-accept").hidden = answered;
  $("mm-decline").hidden = answered;
  r.acceptBy = Date.now() + ticket.acceptSecondsLeft * 1000;
  tickProposal();
}

function tickProposal() {
  if (!run || run.kind !== "queue" || $("player-proposal").hidden) return;
  const left = Math.max(0, (run.acceptBy - Date.now()) / 1000);
  $("proposal-left").textContent = `${left.toFixed(0)} s left`;
}

async function queueRun() {
  const game = $("mm-game").value;
  const mode = $("mm-mode").value;
  if (!game) { say("Pick a game first."); return; }
  const r = begin("queue");
  if (!r) return;
  r.ticketId = `web-${randomHex(8)}`;
  $("player-status").dataset.ticketId = r.ticketId;
  $("play-title").textContent = `Finding a match of ${game}${mode ? ` ${mode}` : ""}`;
  try {
    await mcall("CreateTicket", { ticketId: r.ticketId, game, modes: mode ? [mode] : [], players: [r.id],
                                  allowBots: $("mm-bots").checked }, r.token);
    if (!live(r)) return;
    $("mm-leave").hidden = false;
    note(`${r.id} queued for ${game}${mode ? ` ${mode}` : ""} (ticket ${r.ticketId}).`, "waiting");
    let matched = null;
    await follow(r, `${MATCHMAKING}/WatchTicket`, { ticketId: r.ticketId }, async ({ ticket }) => {
      const state = short(ticket.status, "TICKET_STATUS_");
      $("player-status").dataset.ticket = state;
      showProposal(r, ticket);
      if (state === "waiting") note(`In the queue for ${ticket.waitedSeconds.toFixed(0)} s.`, "waiting");
      else if (state === "proposed") note("A match is proposed.", "proposed");
      else if (state === "matched") { matched = ticket; return true; }
      else if (state === "cancelled" || state === "expired") {
        say(`Your ticket was ${state}${ticket.reason ? `: ${ticket.reason}` : ""}. Press “Find a match” to queue again.`, state);
        note(`Ticket ${state}.`, state);
        return true;
      }
      return false;
    }, "The matchmaking service");
    $("mm-leave").hidden = true;
    $("player-proposal").hidden = true;
    if (!matched || !live(r)) return;
    const a = matched.assignment;
    const mine = a.seats.find((s) => s.player === r.id && s.token);
    if (!mine) throw new Error(`the assignment of ticket ${r.ticketId} holds no seat token for ${r.id}`);
    const others = a.seats.filter((s) => s !== mine).map((s) => `${s.player}${s.bot ? " (a bot)" : ""}`);
    note(`Matched: match ${a.matchId} of ${a.game} ${a.mode}; you are seat ${mine.seat} against ${others.join(", ")}.`, "seated");
    if (matched.seedWindow && !matched.matchStarted) {
      // the match waits for its seats' client seeds: add this seat's, then say ready (as
      // `neon queue` does); a match that started meanwhile refuses the seed, which is fine
      try {
        await unary(rules(a.game, "AddClientSeed"), { matchId: a.matchId, seed: randomHex(32) }, mine.token);
      } catch (err) {
        if (err.code !== "failed_precondition") throw err;
      }
      await mcall("ReadyForMatch", { ticketId: r.ticketId, matchId: a.matchId }, r.token);
      if (!live(r)) return;
      note(`Matched: match ${a.matchId} of ${a.game} ${a.mode}; you are seat ${mine.seat} against ${others.join(", ")}; `
        + "seed added, ready (it starts when every seat is ready).", "ready");
    }
    const played = await playMatch(a.game, a.matchId, mine.token);
    if (!live(r) || played.stopped) return;
    if (played.refused) { halt(r); return; }  // said by playMatch
    note(`Match ${a.matchId} ended. Press “Find a match” to play again.`, "played");
  } catch (err) {
    failed(r, err, "the matchmaking service");
  }
}

async function answer(accept) {
  const r = run;
  if (!r || r.kind !== "queue") return;
  const matchId = $("player-proposal").dataset.matchId;
  $("mm-accept").hidden = true;
  $("mm-decline").hidden = true;
  try {
    if (accept) await mcall("AcceptMatch", { ticketId: r.ticketId, matchId }, r.token);
    else {
      r.declined = matchId;
      await mcall("CancelTicket", { ticketId: r.ticketId }, r.token);
    }
  } catch (err) {
    if (live(r)) say(`${accept ? "Accepting" : "Declining"} was refused: ${plain(err, "the matchmaking service")}`, err.code || "unknown");
  }
}

async function leave() {
  const r = run;
  if (!r || r.kind !== "queue") return;
  $("mm-leave").hidden = true;
  try {
    await mcall("CancelTicket", { ticketId: r.ticketId }, r.token);
  } catch (err) {
    say(`Leaving the queue was refused: ${plain(err, "the matchmaking service")}`, err.code || "unknown");
  }
}

// -- set-up ------------------------------------------------------------------------------------
function remember() {
  const token = $("player-token").value.trim();
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  const claims = claimsOf(token);
  $("player-who").textContent = claims && claims.player ? `You play as ${claims.player}.` : "";
}

// `game`: the game the page's address names (?game=), where "Find a match" starts.
export function setup(games, game = "") {
  $("player-token").value = sessionStorage.getItem(KEY) || "";
  remember();
  $("player-token").addEventListener("input", remember);
  $("player-forget").addEventListener("click", () => {
    if (run && run.kind === "queue" && !$("mm-leave").hidden) leave();
    stopRun();
    clearSeat();  // the seat this token got is played no more, and its view leaves the screen
    sessionStorage.removeItem(KEY);
    $("player-token").value = "";
    remember();
    say("The player token is forgotten.");
  });
  $("player-follow").addEventListener("click", () => { remember(); tournamentRun(); });
  $("player-register").addEventListener("click", () => { remember(); registerRun(); });
  $("player-check-in").addEventListener("click", () => { remember(); checkInRun(); });
  $("player-refresh").addEventListener("click", () => listTournaments($("player-tournament").value));
  $("mm-game").replaceChildren(...games.map((g) => el("option", { value: g }, g)));
  if (games.includes(game)) $("mm-game").value = game;
  $("mm-game").addEventListener("change", fillModes);
  $("mm-queue").addEventListener("click", () => { remember(); queueRun(); });
  $("mm-leave").addEventListener("click", leave);
  $("mm-accept").addEventListener("click", () => answer(true));
  $("mm-decline").addEventListener("click", () => answer(false));
  $("play-open").addEventListener("click", stopRun);  // a seat token pasted: the player's flow ends
  setInterval(tickProposal, 250);
  fillModes();
}

// /?tournament=<id>&play: the tournament chosen; followed at once when this tab holds a player token.
export async function prefillTournament(tournamentId) {
  await listTournaments(tournamentId);
  if ($("player-token").value) tournamentRun();
  else $("play-title").textContent = "Paste your player token, then press “Go to my table”";
}
