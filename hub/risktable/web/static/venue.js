// The venue page: every table whose public topics reach this venue's guest broker,
// one card each (hub online or not, whose turn, a small map in the owners' colours,
// territories and armies per seat). Read only, with the venue's spectator account.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const UNOWNED = "#6d7f90";
const state = { config: null, layout: null, tables: new Map(), messages: 0 };

function rgb(c) { return `rgb(${c[0]},${c[1]},${c[2]})`; }

function svgEl(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  parent.appendChild(node);
  return node;
}

// A table's card, made the first time the table is named or heard from.
function table(id) {
  let entry = state.tables.get(id);
  if (entry) return entry;
  const card = document.createElement("article");
  card.className = "table";
  card.id = `table-${id}`;
  card.dataset.table = id;
  card.dataset.online = "unknown";
  const title = document.createElement("h2");
  const name = document.createElement("span");
  name.textContent = _("table {table}", { table: id });
  const hub = document.createElement("span");
  hub.className = "hub";
  hub.textContent = _("hub not heard yet");
  title.append(name, hub);
  const turn = document.createElement("div");
  turn.className = "turn";
  turn.textContent = _("waiting for its first board");
  const layout = state.layout;
  const mini = document.createElementNS(SVG, "svg");
  mini.setAttribute("class", "mini");
  mini.setAttribute("viewBox", `0 0 ${layout.width} ${layout.height}`);
  mini.setAttribute("role", "img");
  mini.setAttribute("aria-label", _("the board of table {table}", { table: id }));
  const shapes = layout.territories.map((t) =>
    svgEl("path", { d: t.path, class: "unowned", fill: UNOWNED, "data-territory": t.id }, mini));
  const byId = new Map(layout.territories.map((t, i) => [t.id, shapes[i]]));
  const seats = document.createElement("div");
  seats.className = "seats";
  card.append(title, turn, mini, seats);
  entry = { id, card, hub, turn, seats, byId, board: null };
  state.tables.set(id, entry);
  // Cards in table order, wherever a new one comes in.
  const after = [...state.tables.keys()].sort().find((other) => other > id);
  const list = document.getElementById("tables");
  list.insertBefore(card, after ? state.tables.get(after).card : null);
  summarise();
  return entry;
}

function render(entry) {
  const board = entry.board;
  const seats = state.config.seats;
  state.config.territories.forEach((tid, i) => {
    const shape = entry.byId.get(tid);
    const owner = board.owners[i];
    shape.setAttribute("class", owner === 0 ? "unowned" : "");
    shape.setAttribute("fill", owner === 0 ? UNOWNED : rgb(seats[owner - 1].rgb));
    shape.dataset.owner = String(owner);
  });
  const turn = board.turn;
  entry.card.dataset.phase = turn ? turn.phase : "none";
  entry.turn.replaceChildren();
  if (turn) {
    const seat = seats[turn.seat - 1];
    const swatch = document.createElement("i");
    swatch.style.background = rgb(seat.rgb);
    entry.turn.append(swatch, turnLine(turn, nameOf("colour", seat.name)));
  } else {
    entry.turn.textContent = _("no game running");
  }
  entry.seats.replaceChildren();
  seats.forEach((seat, i) => {
    const owned = board.owners.filter((o) => o === i + 1).length;
    if (!owned) return;
    const armies = board.armies.reduce((sum, a, j) => sum + (board.owners[j] === i + 1 ? a : 0),
                                       0);
    const span = document.createElement("span");
    span.className = "seat" + (turn && turn.seat === i + 1 ? " turn-seat" : "");
    span.dataset.seat = String(i + 1);
    span.dataset.territories = String(owned);
    span.dataset.armies = String(armies);
    const swatch = document.createElement("i");
    swatch.style.background = rgb(seat.rgb);
    span.append(swatch, _("{who}: {territories}, {armies}", {
      who: nameOf("colour", seat.name),
      territories: ngettext("{n} territory", "{n} territories", owned),
      armies: ngettext("{n} army", "{n} armies", armies) }));
    entry.seats.appendChild(span);
  });
}

function summarise() {
  const all = [...state.tables.values()];
  const online = all.filter((e) => e.card.dataset.online === "true").length;
  const playing = all.filter((e) => e.board && e.board.turn && e.board.turn.phase !== "over");
  document.getElementById("summary").textContent = _("{tables}, {online} online, {playing} playing",
    { tables: ngettext("{n} table", "{n} tables", all.length), online,
      playing: playing.length });
}

function onMessage(topic, payload) {
  // risk/<table>/board and risk/<table>/hub/status: the spectator can read nothing else.
  const parts = topic.split("/");
  if (parts.length < 3 || parts[0] !== "risk") return;
  let msg;
  try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return; }
  if (!msg || typeof msg !== "object") return;
  const leaf = parts.slice(2).join("/");
  if (leaf === "board" && msg.t === "board" && Array.isArray(msg.owners) &&
      msg.owners.length === state.config.territories.length) {
    const entry = table(parts[1]);
    entry.board = msg;
    render(entry);
  } else if (leaf === "hub/status" && msg.t === "hub_status") {
    const entry = table(parts[1]);
    entry.card.dataset.online = String(Boolean(msg.online));
    entry.hub.textContent = msg.online ? _("hub online") : _("hub offline");
  } else {
    return;
  }
  state.messages += 1;
  document.body.dataset.messages = String(state.messages);
  summarise();
}

// The fixed words of venue.html (i18n.js's translatePage).
const PAGE_WORDS = { title: N_("risktable: the venue"), summary: N_("connecting…"),
                     venue: N_("risktable venue"), "lang-label": N_("language") };

async function start() {
  await i18n.ready;
  translatePage(PAGE_WORDS);
  const [config, layout] = await Promise.all([
    fetch("config.json").then((r) => r.json()),
    fetch("board-map.json").then((r) => r.json()),
  ]);
  state.config = config;
  state.layout = layout;
  for (const id of config.tables) table(id);
  const suffix = Math.random().toString(16).slice(2, 10);
  const options = { clientId: config.client_id_prefix + suffix, clean: true,
                    reconnectPeriod: 2000 };
  if (config.username) { options.username = config.username; options.password = config.password; }
  const client = mqtt.connect(config.ws_url, options);
  const broker = document.getElementById("broker");
  client.on("connect", () => {
    broker.dataset.online = "true";
    broker.textContent = "";
    client.subscribe(["risk/+/board", "risk/+/hub/status"], { qos: 1 });
  });
  client.on("offline", () => {
    broker.dataset.online = "false";
    broker.textContent = _("venue broker unreachable, retrying…");
  });
  client.on("message", onMessage);
}

start();
