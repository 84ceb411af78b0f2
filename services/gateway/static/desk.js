// The organiser's desk on the tournament page: with an organiser token (`var/organiser.token`
// from `neon up`), the core of a tournament from the browser, as the `neon tournament`
// commands do (services/cli/tournament_commands.py).
//   New tournament: CreateTournament (the format's settings as `create` makes them:
//   format_json's default tie-breaks, no-show forfeit, 300 s check-in) then OpenRegistration,
//   and the tournament picked on the page.
//   While registration is open: Register (several ids at once), each player's status with
//   "Check in" (CheckIn) and "Withdraw" (Withdraw), and the desk's line as `check-in` prints
//   it. Start (StartTournament): refused (FAILED_PRECONDITION) while registered players have
//   not checked in, the service's message is shown with "Start without them"
//   (checked_in_only); the players the start left out (left_out) are named.
//   While running: "Pair next round" (NextRound); for a table whose match was abandoned,
//   "Rematch" (RematchTable) or "Set result" (CorrectResult: a place per seat, equal places
//   tie, a forfeit or not), each with its reason kept in the log; "Drop" for each playing
//   player (DropPlayer, after a confirm: not paired from the next round on); "Reinstate" for
//   each dropped player, a no-show the service dropped too, in a Swiss or multiplayer event
//   (ReinstatePlayer, with its required reason, after a confirm: paired again from the next
//   round on; an empty reason is not sent; in the other formats one line under the roster says
//   why none is offered); "Add late entry"
//   (AddLateEntry, where the format's late_entry_until allows it; a player the start left
//   out too); "Finish" (FinishTournament).
//   Until it has ended (created, registration open or running): "Force end…" with its
//   reason and a confirm that says what it does there (running: the matches in play do not
//   count, the standings become final; before the start: the tournament is called off
//   unplayed, no standings), then ForceEnd and GetStandings as `neon tournament finish
//   --force` does; ended before the start, the desk says no rounds were played (and the page
//   shows no empty standings table: tournament.js's drawStandings, #standings-none). A
//   confirm left open while the tournament's state changes (started or ended elsewhere) is
//   put away unsent. The ForceEnd carries the state the confirm was opened in
//   (expected_status): one the page had not heard of yet (started elsewhere just before the
//   click) is refused by the service with nothing ended, the desk says so in plain words and
//   draws the tournament as it is now (the confirm put away, as above).
//   "Export bundle" downloads ExportTournament's bundle, which `neon verify` checks.
//   After each act the desk draws the tournament or round its answer carries (the players,
//   the abandoned tables), before the WatchTournament frames that follow.
// It acts on the tournament tournament.js follows (onFollowed: the WatchTournament frames).
// While the desk is open and the tab in view, it asks ListTournaments again every minute and
// when the tab comes back into view or focus (a tournament created by another organiser or
// the CLI shows up), redrawing the page's list only when it changed (relist).
// Every refusal is said in plain words in the desk. A token that reads as a player's or a
// seat's is told the desk needs an organiser token, and nothing is sent with it. The token
// stays in sessionStorage: never in the address, never in the page's text, never logged.
import {
  $, el, short, randomHex, fillModes, tournamentCall as tcall,
} from "/static/common.js";
import { claimsOf, plain } from "/static/play.js";
import { follow, listTournaments, onFollowed, ordinal, resultText } from "/static/tournament.js";

const KEY = "neon-organiser-token";
const NAMED = 40;  // at most this many players named in a line (then "and N more"), as the CLI
const EXPORT_TIMEOUT_MS = 120_000;  // as `neon tournament export`
const TIEBREAKS = {
  swiss: ["buchholz", "median-buchholz", "sonneborn-berger", "wins"],
  "round-robin": ["buchholz", "median-buchholz", "sonneborn-berger", "wins"],
  multiplayer: ["placement-points", "game-tiebreak"],
};
const STANDING = { registered: "registered, not checked in", "checked-in": "checked in" };
const PLAYING = { registered: "registered, not playing (left out at the start)" };  // once started
const LATE_FORMATS = ["swiss", "multiplayer"];  // round robins and brackets take no late entries
const REINSTATE_FORMATS = ["swiss", "multiplayer"];  // as the service's REINSTATE_FORMATS
const NEEDS = "the organiser's desk needs an organiser token (var/organiser.token, written by "
  + "`neon up`)";
const ENDABLE = ["created", "registration", "running"];  // ForceEnd: any state but an end
const LIST_EVERY_MS = 60_000;  // the list asked again this often while the desk is in view
const LIST_GAP_MS = 10_000;  // and on coming back into view or focus, if not asked this recently
const LIST_LIMIT = 50;  // as tournament.js asks

// The tournament the page follows, as the desk knows it. `forceState`: the state the
// force-end's confirm was opened in ("" while it is closed).
const desk = { id: "", t: null, rounds: [], busy: false, abandonedKey: "", rosterKey: "", forceState: "" };

// -- messages ----------------------------------------------------------------------------------
function say(text, code = "") {
  const box = $("desk-message");
  box.hidden = !text;
  box.textContent = text;
  box.dataset.code = code;
}

function note(text) {
  $("desk-note").hidden = !text;
  $("desk-note").textContent = text;
}

const reasonOf = (err) => err.reason ?? err.message;

// A refused call in plain words: what was refused, the status and the service's reason.
export function refusal(err, doing) {
  const code = err.code || "unknown";
  if (code === "permission_denied") {
    return `${doing} was refused (PERMISSION_DENIED: ${reasonOf(err)}): ${NEEDS}; a player's `
      + "or a seat's token cannot act here.";
  }
  return `${doing} was refused: ${plain(err, "the tournament service")}`;
}

const names = (ids) => ids.slice(0, NAMED).join(", ")
  + (ids.length > NAMED ? ` and ${ids.length - NAMED} more` : "");
const plural = (n, word, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

// -- the token ---------------------------------------------------------------------------------
function token() {
  return $("organiser-token").value.trim();
}

// Why the token in the field cannot act at the desk ("" when it may: an organiser's, or one
// that does not read as any role, which the service then judges).
function wrongRole() {
  const claims = claimsOf(token());
  if (!claims || claims.role === "organiser") return "";
  return `This is a ${claims.role} token${claims.player ? ` (${claims.player})` : ""}: ${NEEDS}. `
    + "The desk sends nothing with it.";
}

function remember() {
  const value = token();
  if (value) sessionStorage.setItem(KEY, value);
  else sessionStorage.removeItem(KEY);
  const claims = claimsOf(value);
  $("organiser-who").textContent = claims && claims.role === "organiser"
    ? `You act as the organiser${claims.player ? ` ${claims.player}` : ""}.` : "";
  const wrong = wrongRole();
  $("desk").hidden = !value;
  $("desk-body").hidden = Boolean(wrong);
  say(wrong, wrong ? "permission_denied" : "");
  draw();
}

// -- acting ------------------------------------------------------------------------------------
function setBusy(busy) {
  desk.busy = busy;
  $("desk").dataset.busy = busy ? "1" : "0";
  for (const b of $("desk-body").querySelectorAll("button")) b.disabled = busy;
}

// Runs `fn(token)` with the organiser's token, one act at a time; a refusal said as `doing`'s.
async function act(doing, fn) {
  if (desk.busy) return;
  const value = token();
  if (!value) { say("Paste the organiser token first."); return; }
  const wrong = wrongRole();
  if (wrong) { say(wrong, "permission_denied"); return; }
  setBusy(true);
  say("");
  note("");
  try {
    await fn(value);
  } catch (err) {
    say(refusal(err, doing), err.code || "unknown");
  } finally {
    setBusy(false);
  }
}

// A tournament an answer carries: kept when it is the one followed and not older.
function adopt(t) {
  if (!t || t.tournamentId !== desk.id) return;
  if (!desk.t || Number(t.version) >= Number(desk.t.version)) desk.t = t;
  draw();
}

function button(text, attrs, onClick) {
  const b = el("button", { type: "button", ...attrs }, text);
  b.disabled = desk.busy;
  b.addEventListener("click", onClick);
  return b;
}

// -- drawing -----------------------------------------------------------------------------------
// Where the desk stands, as `neon tournament check-in` says it: who checked in, who is
// registered and has not; once started, who plays and whom the start left out.
export function deskLine(t) {
  const by = {};
  for (const p of t.players || []) (by[p.status] ||= []).push(p.playerId);
  const checked = by["checked-in"] || [], waiting = by.registered || [];
  const withdrawn = by.withdrawn ? `; ${by.withdrawn.length} withdrawn` : "";
  const state = short(t.status, "TOURNAMENT_STATUS_");
  if (state === "force ended" && !by.playing && !by.dropped) {  // called off before the start
    return `${t.tournamentId} is force ended: it ended before it started, no rounds were played `
      + `(${checked.length} checked in, ${waiting.length} registered but not checked in${withdrawn})`;
  }
  if (state === "running") {
    let text = `${t.tournamentId} is running (check-in is over): ${(by.playing || []).length} playing`;
    if (by.dropped) text += `, ${by.dropped.length} dropped`;
    if (waiting.length) text += `, ${waiting.length} registered but not playing: ${names(waiting)}`;
    return text + withdrawn;
  }
  if (!["created", "registration"].includes(state)) {  // over: who played, not who plays
    let text = `${t.tournamentId} is ${state}: ${(by.playing || []).length} played to the end`;
    if (by.dropped) text += `, ${by.dropped.length} dropped`;
    if (waiting.length) text += `, ${waiting.length} registered but left out at the start: ${names(waiting)}`;
    return text + withdrawn;
  }
  const text = `${checked.length} checked in, ${waiting.length} registered but not checked in`;
  if (!waiting.length) return text + withdrawn;
  return `${text}: ${names(waiting)}${withdrawn}`
    + (checked.length ? "; Start refuses without them (or press “Start without them”)"
      : " (nobody checked in: Start takes every registered player)");
}

// A button that asks first: the player's row shows a reason and the confirm. `kind` names
// the classes (kind, kind-reason, kind-confirm, kind-cancel); `confirm(input)` acts with the
// reason's input; Cancel puts the question away (and empties the reason, with `clear`).
function askFirst(kind, label, confirmText, placeholder, confirm, clear = false) {
  const reason = el("input", { class: `${kind}-reason`, autocomplete: "off", placeholder });
  const ask = el("span", { class: "desk-confirm", hidden: "" }, reason,
    button(confirmText, { class: `${kind}-confirm` }, () => confirm(reason)),
    button("Cancel", { class: `${kind}-cancel` }, () => {
      ask.hidden = true; first.hidden = false;
      if (clear) reason.value = "";
    }));
  const first = button(label, { class: kind }, () => { ask.hidden = false; first.hidden = true; reason.focus(); });
  return [first, ask];
}

// A "Drop" that asks first, with a reason (optional).
function dropControls(playerId) {
  return askFirst("drop", "Drop", `Drop ${playerId} from the next rounds`,
    "why (optional, kept in the log)", (input) => drop(playerId, input.value));
}

// A "Reinstate" that asks first, with a reason (required: an empty one is not sent).
function reinstateControls(playerId) {
  return askFirst("reinstate", "Reinstate", `Reinstate ${playerId} from the next round`,
    "why they play again (required, kept in the log)", (input) => reinstate(playerId, input), true);
}

// The format of `t` (format_json's "format"; "" when it cannot be read).
function formatOf(t) {
  try { return JSON.parse(t.formatJson || "{}").format || ""; } catch { return ""; }
}

// Why the dropped players of running `t` get no "Reinstate" ("" when they do, or none is
// dropped): one line under the roster, not one per player.
export function noReinstating(t) {
  const format = formatOf(t);
  if (short(t.status, "TOURNAMENT_STATUS_") !== "running" || REINSTATE_FORMATS.includes(format)) return "";
  if (!(t.players || []).some((p) => p.status === "dropped")) return "";
  const kind = format.includes("elimination") ? "an elimination bracket" : `a ${format || "tournament of this format"}`;
  return `A dropped player cannot be reinstated here: ${kind} has a fixed schedule (only a Swiss `
    + "or a multiplayer event pairs a reinstated player again).";
}

// Each player with what the desk may do for them: before the start "Check in" and
// "Withdraw"; while running "Drop" for a playing player, "Reinstate" for a dropped one (Swiss
// and multiplayer), "Add as late entry" for one the start left out. Drawn again only when the
// players change (an open confirm stays).
function drawRoster(t, state) {
  const key = `${state} ${(t.players || []).map((p) => `${p.playerId}:${p.status}:${p.late ? 1 : 0}`).join(" ")}`;
  if (key === desk.rosterKey) return;
  desk.rosterKey = key;
  const running = state === "running";
  $("desk-roster").replaceChildren(...(t.players || []).map((p) => {
    const words = running ? PLAYING[p.status] || p.status : STANDING[p.status] || p.status;
    const li = el("li", { "data-player": p.playerId, "data-status": p.status, "data-late": p.late ? "1" : "0" },
      el("span", { class: "player" }, p.playerId),
      el("span", { class: "standing" }, words + (p.late ? " (late entry)" : "")));
    if (running) {
      if (p.status === "playing") li.append(...dropControls(p.playerId));
      if (p.status === "dropped" && REINSTATE_FORMATS.includes(formatOf(t))) {
        li.append(...reinstateControls(p.playerId));
      }
      if (p.status === "registered") {
        li.append(button("Add as late entry", { class: "late-entry" }, () => lateEntry(p.playerId)));
      }
      return li;
    }
    if (p.status === "registered") {
      li.append(button("Check in", { class: "check-in" }, () => playerAct("CheckIn", p.playerId)));
    }
    if (p.status !== "withdrawn") {
      li.append(button("Withdraw", { class: "withdraw" }, () => playerAct("Withdraw", p.playerId)));
    }
    return li;
  }));
}

// A place for each seat (1st..nth; equal places tie, as the service allows), "forfeit", a
// reason and "Set result" (CorrectResult).
function resultForm(round, table) {
  const n = table.seats.length;
  const selects = table.seats.map((player, seat) => el("select", { class: "place", "data-seat": seat },
    ...Array.from({ length: n }, (_, i) => {
      const option = el("option", { value: i + 1 }, ordinal(i + 1));
      option.selected = i === seat;
      return option;
    })));
  const forfeit = el("input", { type: "checkbox", class: "forfeit" });
  const reason = el("input", { class: "result-reason", autocomplete: "off",
                               placeholder: "why (required, kept in the log)" });
  return el("div", { class: "result-form" }, el("span", { class: "small" }, "or set the result:"),
    ...table.seats.map((player, seat) => el("label", {}, `${player} `, selects[seat])),
    el("label", { title: "a forfeit: the lower places lose by forfeit, no game for the tie-breaks" },
      forfeit, " forfeit"),
    reason,
    button("Set result", { class: "set-result" }, () => correct(round, table.number,
      selects.map((s) => Number(s.value)), forfeit.checked, reason.value)));
}

// The tables whose match was abandoned, in rounds not complete: each "Rematch" with its
// reason, or its result set by hand. Drawn again only when that set changes (what is being
// typed or picked stays).
function drawAbandoned() {
  const tables = desk.rounds.filter((r) => !r.complete).flatMap((r) => (r.tables || [])
    .filter((table) => short(table.status, "TABLE_STATUS_") === "abandoned")
    .map((table) => ({ round: r.number, table })));
  const key = tables.map(({ round, table }) => `${round}/${table.number}/${table.matchId}`).join(" ");
  if (key === desk.abandonedKey) return;
  desk.abandonedKey = key;
  $("desk-abandoned").replaceChildren(...tables.map(({ round, table }) => {
    const reason = el("input", { class: "rematch-reason", autocomplete: "off",
                                 placeholder: "why it plays again (kept in the log)" });
    return el("li", { "data-round": round, "data-table": table.number, "data-match-id": table.matchId },
      el("span", { class: "what" }, `Round ${round}, table ${table.number}: ${table.seats.join(" vs ")} — match `
        + `${table.matchId} abandoned${table.abandonedReason ? `: ${table.abandonedReason}` : ""}`),
      el("div", { class: "again" }, el("span", { class: "small" }, "play it again:"), reason,
        button("Rematch", { class: "rematch" }, () => rematch(round, table.number, reason.value))),
      resultForm(round, table));
  }));
}

function draw() {
  const t = desk.t;
  $("desk-tournament").hidden = !t;
  $("desk-title").textContent = t ? `Organiser's desk: ${t.name || t.tournamentId}` : "Organiser's desk";
  if (!t) return;
  const state = short(t.status, "TOURNAMENT_STATUS_");
  $("desk").dataset.tournamentId = t.tournamentId;
  $("desk").dataset.status = state;
  $("desk-line").textContent = deskLine(t);
  $("desk-created").hidden = state !== "created";
  $("desk-registration").hidden = state !== "registration";
  $("desk-starting").hidden = state !== "registration";
  $("desk-running").hidden = state !== "running";
  $("desk-roster").hidden = !["registration", "running"].includes(state);
  $("desk-export").hidden = ["created", "registration"].includes(state);
  if (state !== "registration") $("desk-confirm").hidden = true;
  drawEnding(t, state);
  if (!$("desk-roster").hidden) drawRoster(t, state);
  $("desk-no-reinstate").textContent = noReinstating(t);
  $("desk-no-reinstate").hidden = !$("desk-no-reinstate").textContent;
  drawAbandoned();
}

function followed(id, t, rounds) {
  if (id !== desk.id) {
    Object.assign(desk, { id, t: null, rounds: [], abandonedKey: "", rosterKey: "" });
    $("desk-abandoned").replaceChildren();
    $("desk-roster").replaceChildren();
    forceAsk(false);
    $("desk-started").hidden = true;
    $("desk-confirm").hidden = true;
    $("desk-new").open = false;  // a tournament picked: its desk, the form folded away
    note("");
    if (!wrongRole()) say("");
  }
  desk.rounds = rounds;
  if (t) adopt(t);
  else draw();
}

// -- the acts ----------------------------------------------------------------------------------
// The format's settings as `neon tournament create` makes them (format_json).
// `lateUntil`: the last round a late entry may first play in (0: none; Swiss and multiplayer).
export function formatJson(format, rounds, tableSizes = [], lateUntil = 0) {
  const data = { format };
  if (rounds) data.rounds = rounds;
  if (tableSizes.length) data.table_sizes = tableSizes;
  if (lateUntil && LATE_FORMATS.includes(format)) data.late_entry_until = lateUntil;
  if (TIEBREAKS[format]) data.tiebreaks = TIEBREAKS[format];
  return JSON.stringify(data);
}

function newId(name) {
  const made = name.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 40);
  return made || `t_${randomHex(4)}`;
}

async function create(event) {
  event.preventDefault();
  const name = $("new-name").value.trim();
  const tournamentId = $("new-id").value.trim() || newId(name);
  const sizes = $("new-format").value === "multiplayer"
    ? $("new-table-sizes").value.split(/[\s,]+/).filter(Boolean).map(Number) : [];
  if (sizes.some((n) => !Number.isInteger(n))) {
    say("Seats per table: whole numbers separated by commas, e.g. 3,4.", "invalid_argument");
    return;
  }
  await act(`Creating ${tournamentId}`, async (value) => {
    await tcall("CreateTournament", {
      tournamentId, name, game: $("new-game").value, mode: $("new-mode").value,
      formatJson: formatJson($("new-format").value, Number($("new-rounds").value) || 0, sizes,
                             Number($("new-late").value) || 0),
      noShow: $("new-no-show").value, checkInSeconds: Number($("new-check-in").value) || 300,
    }, value);
    await tcall("OpenRegistration", { tournamentId }, value);
    $("new-id").value = "";
    $("desk-new").open = false;
    await listTournaments();
    follow(tournamentId);
    note(`${tournamentId} created; registration is open.`);
  });
}

async function openRegistration() {
  await act("Opening registration", async (value) => {
    adopt((await tcall("OpenRegistration", { tournamentId: desk.id }, value)).tournament);
    note("Registration is open.");
  });
}

// Register each id of the box; the ones refused stay in the box, named with their reason.
async function register() {
  const ids = $("desk-players").value.split(/[\s,;]+/).filter(Boolean);
  if (!ids.length) { say("Type the ids of the players to register first."); return; }
  await act("Registering", async (value) => {
    const done = [], refused = [], kept = [];
    for (const playerId of ids) {
      try {
        adopt((await tcall("Register", { tournamentId: desk.id, playerId }, value)).tournament);
        done.push(playerId);
      } catch (err) {
        if (["unauthenticated", "permission_denied", "unavailable"].includes(err.code)) throw err;
        kept.push(playerId);
        refused.push(`${playerId} (${(err.code || "unknown").toUpperCase()}: ${reasonOf(err)})`);
      }
    }
    $("desk-players").value = kept.join(" ");
    listTournaments();  // the list's count of players
    note(done.length ? `${plural(done.length, "player")} registered: ${names(done)}.` : "");
    if (refused.length) say(`Not registered: ${refused.join("; ")}.`, "refused");
  });
}

const DONE = { CheckIn: "checked in", Withdraw: "withdrawn" };

async function playerAct(rpc, playerId) {
  const doing = rpc === "CheckIn" ? `Checking ${playerId} in` : `Withdrawing ${playerId}`;
  await act(doing, async (value) => {
    adopt((await tcall(rpc, { tournamentId: desk.id, playerId }, value)).tournament);
    note(`${playerId} ${DONE[rpc]}.`);
  });
}

// What the start did, as `neon tournament start` says it: who plays, whom it left out.
function started(answer) {
  const t = answer.tournament;
  const out = answer.leftOut || [];
  const playing = (t.players || []).filter((p) => ["playing", "dropped"].includes(p.status) && !p.late).length;
  let text = `Started with ${playing} players; ${t.plannedRounds} rounds planned.`;
  if (out.length) {
    text = `Started with ${playing} checked-in players; ${plural(out.length, "registered player")} `
      + `who did not check in ${out.length === 1 ? "is" : "are"} not playing: ${out.join(", ")} `
      + `(${t.plannedRounds} rounds planned; “Add as late entry” adds them where the format allows it).`;
  }
  $("desk-started").hidden = false;
  $("desk-started").textContent = text;
  $("desk-started").dataset.leftOut = out.join(" ");
}

async function start(checkedInOnly) {
  await act("The start", async (value) => {
    try {
      const answer = await tcall("StartTournament", { tournamentId: desk.id, checkedInOnly }, value);
      $("desk-confirm").hidden = true;
      adopt(answer.tournament);
      started(answer);
      listTournaments();
    } catch (err) {
      // refused for the registered players it would leave out: say so, and offer to go on
      if (checkedInOnly || err.code !== "failed_precondition" || !/checked_in_only/.test(reasonOf(err))) throw err;
      say(`The start was refused (FAILED_PRECONDITION): ${reasonOf(err)
        .replace("pass checked_in_only to start without them", "press “Start without them”")}.`,
      "failed_precondition");
      $("desk-confirm").hidden = false;
    }
  });
}

async function nextRound() {
  await act("Pairing the next round", async (value) => {
    const { round } = await tcall("NextRound", { tournamentId: desk.id }, value);
    const tables = round.tables || [];
    const byes = tables.filter((table) => table.bye).length;
    note(`Round ${round.number} paired: ${plural(tables.length - byes, "table")}`
      + `${byes ? ` and ${plural(byes, "bye")}` : ""}.`);
  });
}

// A round an answer carries, drawn at once (the WatchTournament frames follow).
function adoptRound(round) {
  if (!round || round.tournamentId !== desk.id) return;
  desk.rounds = [...desk.rounds.filter((r) => r.number !== round.number), round]
    .sort((a, b) => a.number - b.number);
  draw();
}

async function rematch(number, table, reason) {
  await act(`The rematch of table ${table}`, async (value) => {
    const { round } = await tcall("RematchTable", { tournamentId: desk.id, round: number, table, reason }, value);
    adoptRound(round);
    const again = (round.tables || []).find((x) => x.number === table);
    note(`Table ${table} of round ${number} plays again${again && again.matchId ? `: match ${again.matchId}` : ""}.`);
  });
}

async function correct(number, table, placements, forfeited, reason) {
  await act(`Setting the result of table ${table}`, async (value) => {
    const { round } = await tcall("CorrectResult", {
      tournamentId: desk.id, round: number, table, placements, forfeited, reason,
    }, value);
    adoptRound(round);
    const set = (round.tables || []).find((x) => x.number === table);
    note(`Table ${table} of round ${number}: ${set ? resultText(set) : `${placements.join(", ")} (set by hand)`}`
      + "; the abandoned match stays in the log.");
  });
}

async function drop(playerId, reason) {
  await act(`Dropping ${playerId}`, async (value) => {
    const { tournament: t } = await tcall("DropPlayer", { tournamentId: desk.id, playerId, reason }, value);
    adopt(t);
    note(`${playerId} dropped after round ${t.roundsPaired}: not paired from round ${t.roundsPaired + 1} on.`);
  });
}

// ReinstatePlayer with the reason typed in `input` (none typed: nothing sent, the desk asks
// for it); the roster drawn from the answer, the player playing again.
async function reinstate(playerId, input) {
  const reason = input.value.trim();
  if (!reason) {
    say(`Type why ${playerId} plays again first: a reinstatement needs a reason, kept in the `
      + "tournament's log. Nothing was sent.", "invalid_argument");
    input.focus();
    return;
  }
  await act(`Reinstating ${playerId}`, async (value) => {
    const { tournament: t } = await tcall("ReinstatePlayer", { tournamentId: desk.id, playerId, reason }, value);
    adopt(t);
    note(`${playerId} reinstated (${reason}): paired again from round ${t.roundsPaired + 1} on; `
      + "the rounds missed count as unplayed.");
  });
}

// The refusal of a late entry the format does not take, in plain words ("" for another).
function lateRefused(err) {
  const m = /takes late entries until round (\d+); the next round is (\d+)/.exec(reasonOf(err));
  if (err.code !== "failed_precondition" || !m) return "";
  const why = `(FAILED_PRECONDITION: ${reasonOf(err)})`;
  return Number(m[1]) === 0
    ? `${why}: this tournament's format takes no late entries (it was created without “Late `
      + "entries until round”, late_entry_until)."
    : `${why}: late entries may first play in round ${m[1]} at the latest, and round ${m[1]} `
      + "is paired already.";
}

async function lateEntry(playerId) {
  if (!playerId) { say("Type the id of the player to add first."); return; }
  await act(`Adding ${playerId} as a late entry`, async (value) => {
    try {
      const { tournament: t } = await tcall("AddLateEntry", { tournamentId: desk.id, playerId }, value);
      adopt(t);
      if ($("desk-late-player").value.trim() === playerId) $("desk-late-player").value = "";
      note(`${playerId} enters late: paired from round ${t.roundsPaired + 1} on.`);
    } catch (err) {
      const plainly = lateRefused(err);
      if (!plainly) throw err;
      say(`Adding ${playerId} as a late entry was refused ${plainly}`, err.code);
    }
  });
}

// What the force-end does in `state`, said in its confirm.
export function forceWhat(state) {
  if (state === "running") {
    return "End the tournament now: the matches still in play are abandoned and do not count, "
      + "and the standings as they are become final.";
  }
  return "Call the tournament off now: it ends without being played. No round is paired, "
    + `nobody plays and there are no standings; ${state === "created" ? "registration never opens"
      : "registration closes"} and it can never be started.`;
}

// The force-end's confirm: its reason and "End the tournament now" shown (or put away).
function forceAsk(open) {
  $("desk-force-confirm").hidden = !open;
  $("desk-force").hidden = open;
  desk.forceState = open && desk.t ? short(desk.t.status, "TOURNAMENT_STATUS_") : "";
  if (open) $("desk-force-reason").focus();
  else $("desk-force-reason").value = "";
}

// "Force end…" in every state but an end (ForceEnd takes them all), its confirm saying what
// it does there. A confirm opened in another state than the tournament's now (another
// organiser or the CLI started or ended it meanwhile) is put away unsent, and the desk says so.
function drawEnding(t, state) {
  const endable = ENDABLE.includes(state);
  $("desk-ending").hidden = !endable;
  $("desk-force-what").textContent = endable ? forceWhat(state) : "";
  if (desk.forceState && desk.forceState !== state) {
    forceAsk(false);
    note(`${t.tournamentId} is ${state} now: the force-end was put away unsent`
      + `${endable ? "; press “Force end…” again if it should still end" : ""}.`);
  } else if (!endable) forceAsk(false);
}

// The desk's word after ForceEnd (`t`, its answer) and GetStandings (`rows`).
export function forceEnded(t, rows) {
  const state = short(t.status, "TOURNAMENT_STATUS_");
  if (state !== "force ended") {  // ForceEnd leaves a finished tournament as it is
    return `${t.tournamentId} is ${state} already: nothing was force-ended; its final standings stand.`;
  }
  const ended = `Force-ended (${t.reason})`;
  if (!rows.length) return `${ended} before it started: no rounds were played, so there are no standings.`;
  if (!Number(t.roundsPaired || 0)) {
    return `${ended} before its first round was paired: no rounds were played; the final `
      + `standings list ${plural(rows.length, "player")} with no results.`;
  }
  return `${ended}: the matches still in play do not count; the final standings are published; `
    + `1st: ${rows[0].playerId}.`;
}

// The enum value of a state in words: "registration" is TOURNAMENT_STATUS_REGISTRATION.
const statusOf = (state) => `TOURNAMENT_STATUS_${state.toUpperCase().replace(/ /g, "_")}`;

// The refusal of a force-end whose confirm was opened in another state than the
// tournament's now (the service's FAILED_PRECONDITION for expected_status), in plain words.
export function forceRefused(err, id) {
  return `Force-ending was refused (FAILED_PRECONDITION: ${reasonOf(err)}): another organiser `
    + `or the CLI changed ${id} after this confirm was opened; nothing was ended, and the desk `
    + "now shows it as it is.";
}

// ForceEnd, then the standings it published, as `neon tournament finish --force` prints them.
// It carries the state the confirm was opened in (expected_status): the service refuses it,
// ending nothing, if the tournament is in another state now and has not ended.
async function forceEnd() {
  const asked = desk.forceState;
  const id = desk.id;
  await act("Force-ending", async (value) => {
    const reason = $("desk-force-reason").value;
    desk.forceState = "";  // the end drawn (by the answer or a frame before it) is this act's
    let t;
    try {
      ({ tournament: t } = await tcall("ForceEnd", {
        tournamentId: id, reason, expectedStatus: asked ? statusOf(asked) : undefined,
      }, value));
    } catch (err) {
      desk.forceState = asked;
      if (err.code !== "failed_precondition" || !asked) throw err;
      say(forceRefused(err, id), err.code);
      try {  // the tournament as it is now: the confirm put away (drawEnding) and said why
        adopt((await tcall("GetTournament", { tournamentId: id })).tournament);
      } catch {
        // the WatchTournament frames draw it when they come
      }
      return;
    }
    forceAsk(false);
    adopt(t);
    const { rows } = await tcall("GetStandings", { tournamentId: desk.id });
    listTournaments();
    note(forceEnded(t, rows || []));
  });
}

async function finish() {
  await act("Finishing", async (value) => {
    const answer = await tcall("FinishTournament", { tournamentId: desk.id }, value);
    adopt(answer.tournament);
    const first = (answer.rows || [])[0];
    listTournaments();
    note(`Finished: the final standings are published${first ? `; 1st: ${first.playerId}` : ""}.`);
  });
}

// ExportTournament's bundle (bytes: base64 in JSON) downloaded as <id>-bundle.jsonl.
async function exportBundle() {
  await act("The export", async (value) => {
    const answer = await tcall("ExportTournament", { tournamentId: desk.id }, value, EXPORT_TIMEOUT_MS);
    const bytes = Uint8Array.from(atob(answer.bundleJsonl || ""), (c) => c.charCodeAt(0));
    const file = `${desk.id}-bundle.jsonl`;
    const url = URL.createObjectURL(new Blob([bytes], { type: "application/jsonl" }));
    const link = el("a", { href: url, download: file, hidden: "" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    note(`${plural(answer.matches || 0, "match", "matches")} and ${plural(answer.checkpoints || 0, "round checkpoint")} `
      + `in ${file} (downloaded); check it with: neon verify ${file}`);
  });
}

// -- the list of tournaments -------------------------------------------------------------------
// The page's list (tournament.js) is drawn when the Tournaments tab opens, by its "Refresh",
// after the desk's acts and when the followed tournament ends: a tournament another organiser
// or the CLI created, or players who registered themselves, would not show until then. While
// the desk is open and the page in view, the desk asks ListTournaments again every
// LIST_EVERY_MS and when the tab comes back into view or focus (not twice within LIST_GAP_MS),
// and draws the list again only when what it shows changed: nothing while the tab is hidden.
const listing = { at: -Infinity, key: "", busy: false };

async function relist() {
  if (document.hidden || $("tournament").hidden || $("desk").hidden || $("desk-body").hidden) return;
  if (listing.busy || Date.now() - listing.at < LIST_GAP_MS) return;
  listing.busy = true;
  listing.at = Date.now();
  try {
    const found = (await tcall("ListTournaments", { limit: LIST_LIMIT })).tournaments || [];
    const key = JSON.stringify(found.map((t) => [t.tournamentId, t.name, t.game, t.mode, t.format,
                                                 t.players, t.status]));
    const shown = [...$("tournament-list").querySelectorAll("button[data-tournament-id]")]
      .map((b) => b.dataset.tournamentId).join(" ");
    const same = key === listing.key && shown === found.map((t) => t.tournamentId).join(" ");
    listing.key = key;
    if (!same) await listTournaments();
  } catch {
    // a background look only: the next one, or "Refresh", says what is wrong
  } finally {
    listing.busy = false;
  }
}

async function fillNewModes() {
  const game = $("new-game").value;
  if (!game) return;
  try {
    await fillModes($("new-mode"), game);
  } catch (err) {
    say(`The modes of ${game} could not be read: ${plain(err, `the rules service of ${game}`)}`, err.code || "unknown");
  }
}

// -- set-up ------------------------------------------------------------------------------------
export function setup(games) {
  $("new-game").replaceChildren(...games.map((g) => el("option", { value: g }, g)));
  $("new-game").addEventListener("change", fillNewModes);
  $("new-format").addEventListener("change", () => {
    $("new-table-sizes-label").hidden = $("new-format").value !== "multiplayer";
    $("new-late-label").hidden = !LATE_FORMATS.includes($("new-format").value);
  });
  $("desk-new-form").addEventListener("submit", create);
  $("desk-open").addEventListener("click", openRegistration);
  $("desk-register").addEventListener("click", register);
  $("desk-start").addEventListener("click", () => start(false));
  $("desk-start-anyway").addEventListener("click", () => start(true));
  $("desk-next-round").addEventListener("click", nextRound);
  $("desk-finish").addEventListener("click", finish);
  $("desk-force").addEventListener("click", () => forceAsk(true));
  $("desk-force-cancel").addEventListener("click", () => forceAsk(false));
  $("desk-force-now").addEventListener("click", forceEnd);
  $("desk-late-add").addEventListener("click", () => lateEntry($("desk-late-player").value.trim()));
  $("desk-export").addEventListener("click", exportBundle);
  setInterval(relist, LIST_EVERY_MS);
  window.addEventListener("focus", relist);
  document.addEventListener("visibilitychange", relist);
  $("organiser-token").value = sessionStorage.getItem(KEY) || "";
  $("organiser-token").addEventListener("input", remember);
  $("organiser-forget").addEventListener("click", () => {
    sessionStorage.removeItem(KEY);
    $("organiser-token").value = "";
    remember();
    $("organiser-who").textContent = "The organiser token is forgotten.";
  });
  onFollowed(followed);
  $("desk-new").open = !$("tournament").dataset.tournamentId;
  remember();
  fillNewModes();
}
