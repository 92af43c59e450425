// The live board page: draws board-map.json as SVG and follows the table's public
// topics (board, scene, hub/status) over MQTT on WebSockets with the spectator account.
// Only public data reaches this page: the spectator's ACL allows nothing else.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
// Continent tints: the halo round each territory and the fill of unowned ones,
// soft so that the seat colours stay the loud thing on the page.
const CONTINENT = {
  north_america: "#d8c26a", south_america: "#cf7c5c", europe: "#7f96d6",
  africa: "#c9a070", asia: "#7fb98a", australia: "#b88ac0",
};
const state = { config: null, layout: null, board: null, scene: null, portrait: null,
                nodes: {}, names: {} };

// Every sentence the page writes, in one place: a seat is its colour's name, a
// territory its name, both in the page's language (i18n.js).
const WORDS = {
  turn: (e) => ngettext("{who}'s turn: {n} army to place", "{who}'s turn: {n} armies to place",
                        e.n, e),
  trade: (e) => ngettext("{who} traded cards for {n} army", "{who} traded cards for {n} armies",
                         e.n, e),
  battle: (e) => _("{who} attacked {to} from {from}: lost {lost}, {to} lost {killed}", e),
  conquer: (e) => ngettext("{who} took {to} from {from}, moving {n} army in",
                           "{who} took {to} from {from}, moving {n} armies in", e.n, e),
  out: (e) => _("{who} is out, beaten by {by}", e),
  odds: (o) => _("{from} → {to}: {win} to take it", o),
  noOdds: () => _("no attack being considered"),
  // The coach's hint to a seat that shows its hints here ([table] coach, docs/bots.md).
  hint: {
    claim: (h) => _("Hint for {who}: claim {to}", h),
    place: (h) => ngettext("Hint for {who}: place {n} army on {to}",
                           "Hint for {who}: place {n} armies on {to}", h.n, h),
    trade: (h) => ngettext("Hint for {who}: trade {n} card", "Hint for {who}: trade {n} cards",
                           h.n, h),
    attack: (h) => _("Hint for {who}: attack {to} from {from}", h),
    defend: (h) => ngettext("Hint for {who}: defend with {n} die",
                            "Hint for {who}: defend with {n} dice", h.n, h),
    occupy: (h) => ngettext("Hint for {who}: move {n} army into {to}",
                            "Hint for {who}: move {n} armies into {to}", h.n, h),
    fortify: (h) => ngettext("Hint for {who}: move {n} army from {from} to {to}",
                             "Hint for {who}: move {n} armies from {from} to {to}", h.n, h),
    end_attack: (h) => _("Hint for {who}: end the attacks", h),
    end_turn: (h) => _("Hint for {who}: end the turn", h),
  },
  noEvents: () => _("nothing has happened yet"),
  seatsHead: () => [_("seat"), _("territories"), _("armies"), _("cards")],
  noGame: () => _("no game running"),
  seatN: (n) => _("seat {n}", { n }),
  // A seat the hub plays itself, by the level the scene names (docs/bots.md).
  bot: (level) => (level === "easy" ? _("easy bot") : level === "normal" ? _("normal bot")
    : level === "hard" ? _("hard bot") : _("bot")),
  table: (table) => _("table {table}", { table }),
  hubOnline: () => _("hub online"),
  hubOffline: () => _("hub offline"),
  unreachable: () => _("broker unreachable, retrying…"),
};

// The fixed words of the board page's HTML (i18n.js's translatePage).
const PAGE_WORDS = {
  title: N_("risktable: live board"), hub: N_("connecting…"), "turn-text": N_("no game yet"),
  map: N_("the board"), odds: N_("no attack being considered"), "lang-label": N_("language"),
  "tray-caption": N_("dice tray: the last roll read"),
};

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function rgb(c) { return `rgb(${c[0]},${c[1]},${c[2]})`; }

// Seats past the players hold neutral armies (two-player games); null: not known.
function seatOf(owner) {
  const players = state.config.players;
  return players && owner > players ? state.config.neutral : state.config.seats[owner - 1];
}

// Phones held upright get the map turned a quarter: (x, y) -> (H - y, x).
function project(x, y) {
  return state.portrait ? [state.layout.height - y, x] : [x, y];
}

function draw() {
  const layout = state.layout;
  const svg = document.getElementById("map");
  svg.replaceChildren();
  state.portrait = window.innerHeight > window.innerWidth;
  const [w, h] = state.portrait ? [layout.height, layout.width] : [layout.width, layout.height];
  const pad = 12;
  svg.setAttribute("viewBox", `${-pad} ${-pad} ${w + 2 * pad} ${h + 2 * pad}`);
  const world = el("g", state.portrait
    ? { transform: `matrix(0,1,-1,0,${layout.height},0)` } : {}, svg);
  const seas = el("g", {}, world);
  for (const s of layout.sea_lines) {
    if (s.wrap) {
      // Round the back of the world: a stub off each side of the map.
      const [left, right] = s.from[0] < s.to[0] ? [s.from, s.to] : [s.to, s.from];
      el("line", { class: "sea-line", x1: left[0], y1: left[1], x2: -pad, y2: left[1] }, seas);
      el("line", { class: "sea-line", x1: right[0], y1: right[1], x2: layout.width + pad,
                   y2: right[1] }, seas);
    } else {
      el("line", { class: "sea-line", x1: s.from[0], y1: s.from[1], x2: s.to[0], y2: s.to[1] },
         seas);
    }
  }
  const halos = el("g", {}, world);
  const shapes = el("g", {}, world);
  // The LED board's highlight, drawn over every shape so no neighbour hides an edge.
  const lights = el("g", { id: "lights" }, world);
  const labels = el("g", {}, svg);
  state.nodes = {};
  for (const t of layout.territories) {
    state.names[t.id] = nameOf("territory", t.name);
    el("path", { d: t.path, fill: "none", stroke: CONTINENT[t.continent], "stroke-width": 5 },
       halos);
    const shape = el("path", { d: t.path, class: "territory unowned", id: `t-${t.id}`,
                               fill: CONTINENT[t.continent] }, shapes);
    el("title", {}, shape).textContent = state.names[t.id];
    const [x, y] = project(t.label[0], t.label[1]);
    const label = el("g", { class: "label", id: `l-${t.id}` }, labels);
    // Upright phones show the map smaller: bigger labels keep the numbers readable.
    el("circle", { cx: x, cy: y, r: state.portrait ? 9 : 7 }, label);
    const text = el("text", { x: x, y: y, "font-size": state.portrait ? 11 : 8 }, label);
    const light = el("path", { d: t.path, class: "light", id: `h-${t.id}` }, lights);
    state.nodes[t.id] = { shape, text, label, light, continent: t.continent };
  }
  render();
  renderScene();
}

function render() {
  const board = state.board;
  if (!board || !state.layout) return;
  const order = state.config.territories;
  order.forEach((tid, i) => {
    const node = state.nodes[tid];
    const owner = board.owners[i];
    node.shape.dataset.owner = owner;
    node.shape.classList.toggle("unowned", owner === 0);
    node.shape.setAttribute("fill", owner === 0 ? CONTINENT[node.continent]
      : rgb(seatOf(owner).rgb));
    node.text.textContent = numberText(board.armies[i]);
  });
  const turn = board.turn;
  document.body.dataset.phase = turn ? turn.phase : "none";
  const swatch = document.getElementById("turn-swatch");
  const text = document.getElementById("turn-text");
  if (turn) {
    const seat = state.config.seats[turn.seat - 1];
    swatch.style.background = rgb(seat.rgb);
    text.textContent = turnLine(turn, nameOf("colour", seat.name));
  } else {
    swatch.style.background = "transparent";
    text.textContent = WORDS.noGame();
  }
  renderSeats();
  document.body.dataset.boards = String(Number(document.body.dataset.boards || 0) + 1);
}

// The seat table: territories and armies summed from the board, cards from the scene.
function renderSeats() {
  const board = state.board;
  const table = document.getElementById("seats");
  table.replaceChildren();
  if (!board) return;
  const cards = (state.scene && state.scene.cards) || [];
  const bots = (state.scene && state.scene.bots) || [];
  const head = document.createElement("tr");
  for (const word of WORDS.seatsHead()) {
    const th = document.createElement("th");
    th.textContent = word;
    head.appendChild(th);
  }
  table.appendChild(head);
  const turn = board.turn;
  const shown = state.config.players ? state.config.players + 1 : state.config.seats.length;
  state.config.seats.slice(0, shown).forEach((_, i) => {
    const owned = board.owners.filter((o) => o === i + 1);
    if (!owned.length && !cards[i]) return;
    const seat = seatOf(i + 1);
    const armies = board.armies.filter((_, j) => board.owners[j] === i + 1)
      .reduce((a, b) => a + b, 0);
    const row = document.createElement("tr");
    row.className = "seat" + (turn && turn.seat === i + 1 ? " turn-seat" : "");
    row.dataset.seat = String(i + 1);
    const name = document.createElement("td");
    name.innerHTML = `<i style="background:${rgb(seat.rgb)}"></i>`;
    name.append(nameOf("colour", seat.name));
    if (bots[i]) {
      const bot = document.createElement("small");
      bot.className = "bot";
      bot.textContent = WORDS.bot(bots[i]);
      name.append(" ", bot);
    }
    row.appendChild(name);
    for (const [cls, value] of [["territories", owned.length], ["armies", armies],
                                ["cards", cards[i] || 0]]) {
      const td = document.createElement("td");
      td.className = cls;
      td.textContent = numberText(value);
      row.appendChild(td);
    }
    table.appendChild(row);
  });
}

function seatName(seat) {
  const s = seatOf(seat);
  return s ? nameOf("colour", s.name) : WORDS.seatN(seat);
}

// The scene: highlight on the map, capitals on their labels, the odds line, the events.
function renderScene() {
  const scene = state.scene;
  if (!scene || !state.layout) return;
  const order = state.config.territories;
  const lit = new Set(scene.lit.map((i) => order[i]));
  const targets = new Set((scene.targets || []).map((i) => order[i]));
  const cursor = scene.cursor === undefined ? null : order[scene.cursor];
  const battle = (scene.battle || []).map((i) => order[i]);
  const capitals = new Set((scene.capitals || []).map((i) => order[i]));
  for (const tid of order) {
    const node = state.nodes[tid];
    const light = node.light;
    light.classList.toggle("lit", lit.has(tid));
    light.classList.toggle("target", targets.has(tid));
    light.classList.toggle("cursor", tid === cursor);
    if (tid === battle[0]) light.dataset.battle = "from";
    else if (tid === battle[1]) light.dataset.battle = "to";
    else delete light.dataset.battle;
    node.label.classList.toggle("capital", capitals.has(tid));
  }
  // A phone seat's page draws the map and the seat table without the odds and events.
  const odds = document.getElementById("odds");
  if (odds) renderOdds(odds, scene, order);
  const hint = document.getElementById("hint");
  if (hint) renderHint(hint, scene, order);
  const list = document.getElementById("events");
  if (list) renderEvents(list, scene, order);
  renderSeats();
  document.body.dataset.scenes = String(Number(document.body.dataset.scenes || 0) + 1);
}

function renderOdds(odds, scene, order) {
  if (scene.odds) {
    const o = scene.odds;
    odds.dataset.from = order[o.from];
    odds.dataset.to = order[o.to];
    odds.dataset.win = String(o.win);
    odds.textContent = WORDS.odds({ from: state.names[order[o.from]],
      to: state.names[order[o.to]],
      win: percentText(o.win / 1000) });
  } else {
    for (const key of ["from", "to", "win"]) delete odds.dataset[key];
    odds.textContent = WORDS.noOdds();
  }
}

// The hint line, and its territories marked on the map; hidden without a hint.
function renderHint(line, scene, order) {
  const h = scene.hint;
  const marked = h ? [h.from, h.to].filter((i) => i !== undefined).map((i) => order[i]) : [];
  for (const tid of order) state.nodes[tid].light.classList.toggle("hint", marked.includes(tid));
  for (const key of ["seat", "k", "from", "to"]) delete line.dataset[key];
  line.hidden = !h;
  if (!h) {
    line.textContent = "";
    return;
  }
  line.dataset.seat = String(h.seat);
  line.dataset.k = h.k;
  if (h.from !== undefined) line.dataset.from = order[h.from];
  if (h.to !== undefined) line.dataset.to = order[h.to];
  line.style.borderColor = rgb(seatOf(h.seat).rgb);
  line.textContent = WORDS.hint[h.k]({
    who: seatName(h.seat), n: h.n,
    from: h.from === undefined ? "" : state.names[order[h.from]],
    to: h.to === undefined ? "" : state.names[order[h.to]],
  });
}

function renderEvents(list, scene, order) {
  list.replaceChildren();
  const events = scene.events || [];
  // Newest first: the line a glance lands on is what just happened.
  for (const e of [...events].reverse()) {
    const li = document.createElement("li");
    li.dataset.k = e.k;
    li.dataset.seat = String(e.seat);
    if (e.from !== undefined) li.dataset.from = order[e.from];
    if (e.to !== undefined) li.dataset.to = order[e.to];
    li.style.borderColor = rgb(seatOf(e.seat).rgb);
    li.textContent = WORDS[e.k]({
      who: seatName(e.seat), n: e.n, lost: e.lost, killed: e.killed,
      from: e.from === undefined ? "" : state.names[order[e.from]],
      to: e.to === undefined ? "" : state.names[order[e.to]],
      by: e.by === undefined ? "" : seatName(e.by),
    });
    list.appendChild(li);
  }
  if (!events.length) {
    const li = document.createElement("li");
    li.className = "none";
    li.textContent = WORDS.noEvents();
    list.appendChild(li);
  }
}

// The dice tray's last photo with each die's read value boxed (config.tray): fetched
// again on every scene, shown anew when the tray has read another roll.
async function refreshTray() {
  let text;
  try {
    const r = await fetch("tray.json", { cache: "no-store" });
    if (!r.ok) return;
    text = await r.text();
  } catch (e) { return; }
  if (text === state.trayRead) return;  // the same read (a restarted tray counts from 1)
  state.trayRead = text;
  const read = JSON.parse(text);
  const figure = document.getElementById("tray");
  const img = document.getElementById("tray-photo");
  img.src = `tray.jpg?seq=${read.seq}`;
  const boxes = document.getElementById("tray-dice");
  boxes.replaceChildren();
  for (const die of read.dice) {
    const [x0, y0, x1, y1] = die.box.map((v) => v / 10);
    const box = document.createElement("div");
    box.className = die.sure ? "die" : "die unsure";
    Object.assign(box.style, { left: `${x0}%`, top: `${y0}%`, width: `${x1 - x0}%`,
                               height: `${y1 - y0}%` });
    const value = document.createElement("span");
    value.textContent = die.sure ? String(die.value) : `${die.value}?`;
    box.appendChild(value);
    boxes.appendChild(box);
  }
  figure.dataset.seq = String(read.seq);
  figure.hidden = false;
}

function onMessage(topic, payload) {
  let msg;
  try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return; }
  const base = `risk/${state.config.table}/`;
  if (topic === base + "board" && msg.t === "board") {
    state.board = msg;
    render();
  } else if (topic === base + "scene" && msg.t === "scene") {
    state.scene = msg;
    renderScene();
    if (state.config.tray) refreshTray();
  } else if (topic === base + "hub/status") {
    const hub = document.getElementById("hub");
    hub.dataset.online = String(Boolean(msg.online));
    hub.textContent = msg.online ? WORDS.hubOnline() : WORDS.hubOffline();
  }
}

async function start() {
  await i18n.ready;
  translatePage(PAGE_WORDS);
  const [config, layout] = await Promise.all([
    fetch("config.json").then((r) => r.json()),
    fetch("board-map.json").then((r) => r.json()),
  ]);
  state.config = config;
  state.layout = layout;
  document.getElementById("table").textContent = WORDS.table(config.table);
  draw();
  window.addEventListener("resize", () => {
    if ((window.innerHeight > window.innerWidth) !== state.portrait) draw();
  });
  const suffix = Math.random().toString(16).slice(2, 10);
  const options = { clientId: config.client_id_prefix + suffix, clean: true,
                    reconnectPeriod: 2000 };
  if (config.username) { options.username = config.username; options.password = config.password; }
  const client = mqtt.connect(config.ws_url, options);
  client.on("connect", () => {
    client.subscribe([`risk/${config.table}/board`, `risk/${config.table}/scene`,
                      `risk/${config.table}/hub/status`], { qos: 1 });
  });
  client.on("offline", () => {
    const hub = document.getElementById("hub");
    hub.dataset.online = "unknown";
    hub.textContent = WORDS.unreachable();
  });
  client.on("message", onMessage);
}

// The phone seat (seat.html) draws this map from its own connection (seat.js).
if (document.body.dataset.page !== "seat") start();
