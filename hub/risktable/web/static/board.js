// The live board page: draws board-map.json as SVG and follows the table's public
// topics (board, hub/status) over MQTT on WebSockets with the spectator account.
// Only public data reaches this page: the spectator's ACL allows nothing else.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
// Continent tints: the halo round each territory and the fill of unowned ones,
// soft so that the seat colours stay the loud thing on the page.
const CONTINENT = {
  north_america: "#d8c26a", south_america: "#cf7c5c", europe: "#7f96d6",
  africa: "#c9a070", asia: "#7fb98a", australia: "#b88ac0",
};
const state = { config: null, layout: null, board: null, portrait: null, nodes: {} };

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
  const labels = el("g", {}, svg);
  state.nodes = {};
  for (const t of layout.territories) {
    el("path", { d: t.path, fill: "none", stroke: CONTINENT[t.continent], "stroke-width": 5 },
       halos);
    const shape = el("path", { d: t.path, class: "territory unowned", id: `t-${t.id}`,
                               fill: CONTINENT[t.continent] }, shapes);
    el("title", {}, shape).textContent = t.name;
    const [x, y] = project(t.label[0], t.label[1]);
    const label = el("g", { class: "label", id: `l-${t.id}` }, labels);
    // Upright phones show the map smaller: bigger labels keep the numbers readable.
    el("circle", { cx: x, cy: y, r: state.portrait ? 9 : 7 }, label);
    const text = el("text", { x: x, y: y, "font-size": state.portrait ? 11 : 8 }, label);
    state.nodes[t.id] = { shape, text, continent: t.continent };
  }
  render();
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
    node.text.textContent = String(board.armies[i]);
  });
  const turn = board.turn;
  document.body.dataset.phase = turn ? turn.phase : "none";
  const swatch = document.getElementById("turn-swatch");
  const text = document.getElementById("turn-text");
  if (turn) {
    const seat = state.config.seats[turn.seat - 1];
    swatch.style.background = rgb(seat.rgb);
    const round = turn.round === undefined ? "" : ` · round ${turn.round}`;
    text.textContent = turn.phase === "over"
      ? `game over: ${seat.name} (seat ${turn.seat})${round}`
      : `${seat.name} (seat ${turn.seat}) · ${turn.phase}${round}`;
  } else {
    swatch.style.background = "transparent";
    text.textContent = "no game running";
  }
  const footer = document.getElementById("seats");
  footer.replaceChildren();
  const shown = state.config.players ? state.config.players + 1 : state.config.seats.length;
  state.config.seats.slice(0, shown).forEach((_, i) => {
    const seat = seatOf(i + 1);
    const owned = board.owners.filter((o) => o === i + 1);
    if (!owned.length) return;
    const armies = board.armies.filter((_, j) => board.owners[j] === i + 1)
      .reduce((a, b) => a + b, 0);
    const span = document.createElement("span");
    span.className = "seat" + (turn && turn.seat === i + 1 ? " turn-seat" : "");
    span.innerHTML = `<i style="background:${rgb(seat.rgb)}"></i>`;
    span.append(`${seat.name}: ${owned.length} territories, ${armies} armies`);
    footer.appendChild(span);
  });
  document.body.dataset.boards = String(Number(document.body.dataset.boards || 0) + 1);
}

function onMessage(topic, payload) {
  let msg;
  try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return; }
  const base = `risk/${state.config.table}/`;
  if (topic === base + "board" && msg.t === "board") {
    state.board = msg;
    render();
  } else if (topic === base + "hub/status") {
    const hub = document.getElementById("hub");
    hub.dataset.online = String(Boolean(msg.online));
    hub.textContent = msg.online ? "hub online" : "hub offline";
  }
}

async function start() {
  const [config, layout] = await Promise.all([
    fetch("config.json").then((r) => r.json()),
    fetch("board-map.json").then((r) => r.json()),
  ]);
  state.config = config;
  state.layout = layout;
  document.getElementById("table").textContent = `table ${config.table}`;
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
    client.subscribe([`risk/${config.table}/board`, `risk/${config.table}/hub/status`], { qos: 1 });
  });
  client.on("offline", () => {
    const hub = document.getElementById("hub");
    hub.dataset.online = "unknown";
    hub.textContent = "broker unreachable, retrying…";
  });
  client.on("message", onMessage);
}

// The phone seat (seat.html) draws this map from its own connection (seat.js).
if (document.body.dataset.page !== "seat") start();
