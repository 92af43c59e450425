// The phone seat: a seat controller in a browser, on the same contract as the seat
// firmware (protocol/README.md): a Last Will and a retained birth with its session and
// boot, events numbered and kept in an outbox until the hub answers each, acks and
// errors, the seat's own view and the hub's commands. Its account comes in the URL
// fragment (#table=..&seat=..&user=..&pass=..&ws=..), which browsers never send to a
// server. The map is board.js's, fed from this seat's own connection (a seat may read
// the public board and hub/status).
"use strict";

(async () => {
  // The protocol's numbers (riskproto): one outbox of 16, retries at 500 ms doubling
  // to 8 s, "waiting for the hub" after 2 s without an answer.
  const OUTBOX_CAPACITY = 16;
  const RETRY_MS = 500;
  const MAX_RETRY_MS = 8000;
  const WAITING_MS = 2000;
  const MAX_COUNTER = 2 ** 30;
  const MAX_STEPS = 64;
  const ENCODER_SETTLE_MS = 150; // taps this close together are one turn of the knob
  const SWIPE_PX = 40; // a swipe of this many pixels is one encoder step
  const NOTICE_MS = 4000;
  const RECONNECT_MS = 1000;
  // "shaping": a browser joins and orders Persian letters itself, so the hub sends this
  // seat logical lines in every language.
  const CAPS = ["encoder", "buttons", "dice_manual", "phone", "shaping"];
  const FW = "phone";

  // What the seat shows for a refusal whose detail is technical (seat/refusal.py).
  const OWN_WORDS = {
    malformed: N_("The hub could not read that input: try again"),
    too_large: N_("The hub could not read that input: try again"),
    schema: N_("The hub could not read that input: try again"),
    version: N_("This seat does not match the hub"),
    unknown_seat: N_("This seat is not at this table"),
    duplicate: N_("The hub had this input already"),
    stale: N_("That input came too late for the hub"),
    seq: N_("Inputs got out of order: try again"),
  };

  // The fixed words of seat.html (i18n.js's translatePage).
  const PAGE_WORDS = {
    title: N_("risktable: phone seat"), hub: N_("connecting…"), "turn-text": N_("no game yet"),
    "status-line": N_("connecting…"), "dice-title": N_("Roll"), "dice-clear": N_("Clear"),
    "dice-roll": N_("Roll on the phone"), left: N_("turn left"), right: N_("turn right"),
    back: N_("Back"), confirm: N_("Confirm"), map: N_("the board"), "lang-label": N_("language"),
    "tap-card": N_("Tap the card asked for"), "ask-hint": N_("Hint"),
  };

  const $ = (id) => document.getElementById(id);
  const body = document.body;
  await i18n.ready;
  translatePage(PAGE_WORDS);

  function fail(text) {
    $("status-line").textContent = text;
    body.dataset.link = "error";
    throw new Error(text);
  }

  // The link's fragment holds the seat's password: once read, it leaves the address bar
  // and the tab's history (replaceState), kept only in this tab's sessionStorage so that
  // a reload still finds it. A new tab needs the QR code again.
  const LINK_KEY = "risktable-seat-link";
  function linkParams() {
    if (location.hash.length > 1) {
      sessionStorage.setItem(LINK_KEY, location.hash.slice(1));
      history.replaceState(null, "", location.pathname + location.search);
    }
    return new URLSearchParams(sessionStorage.getItem(LINK_KEY) || "");
  }

  function readFragment() {
    const p = linkParams();
    const table = p.get("table") || "";
    const seat = Number(p.get("seat"));
    const ws = p.get("ws") || "";
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(table)) fail(_("This link names no valid table: open the seat's QR code again"));
    if (!Number.isInteger(seat) || seat < 1 || seat > 6) fail(_("This link names no seat 1 to 6"));
    if (!/^wss?:\/\//.test(ws)) fail(_("This link names no broker (ws://...)"));
    const keepalive = Number(p.get("ka") || 15);
    return { table, seat, ws, user: p.get("user"), pass: p.get("pass"),
             keepalive: Number.isInteger(keepalive) && keepalive > 0 ? keepalive : 15 };
  }

  const cfg = readFragment();
  const base = `risk/${cfg.table}/`;
  const mine = `${base}seat/${cfg.seat}/`;
  const T = { status: mine + "status", event: mine + "event", view: mine + "view",
              ack: mine + "ack", error: mine + "error", cmd: mine + "cmd",
              hub: base + "hub/status", board: base + "board", scene: base + "scene" };

  // -- what survives a reload or a sleeping phone: boot, session, numbering, outbox --
  const KEY = `risktable-seat/${cfg.table}/${cfg.seat}`;
  function random30() {
    const a = new Uint32Array(1);
    crypto.getRandomValues(a);
    return a[0] % MAX_COUNTER;
  }
  function load() {
    try {
      const s = JSON.parse(localStorage.getItem(KEY));
      if (s && Number.isInteger(s.boot) && Number.isInteger(s.next) && Array.isArray(s.outbox)) {
        return s;
      }
    } catch (e) { /* a damaged record: start as a seat that was switched on */ }
    // A new "power-on": a fresh boot tells the hub to number this seat from 1.
    return { boot: random30(), session: random30(), next: 1, outbox: [] };
  }
  const kept = load();
  // Per entry only in memory: when it was last sent, how often, whether a copy is on the wire.
  const outbox = kept.outbox.map((e) => ({ seq: e.seq, msg: e.msg, sentAt: null, tries: 0,
                                           inflight: false, firstAt: performance.now() }));
  function save() {
    localStorage.setItem(KEY, JSON.stringify({
      boot: kept.boot, session: kept.session, next: kept.next,
      outbox: outbox.map((e) => ({ seq: e.seq, msg: e.msg })),
    }));
    body.dataset.outbox = String(outbox.length);
    body.dataset.next = String(kept.next);
  }

  const link = { client: null, up: false, id: 0, hubSession: null, hubOnline: false };
  let armed = null; // {roll, count} while the hub waits for this seat's dice
  let picked = [];
  let asked = null; // the deck position the card enrollment asks this seat to tap
  let pendingSteps = 0;
  let stepsTimer = null;
  let noticeTimer = null;
  let views = 0;
  let last = null; // the latest event made here

  function status(online) {
    const msg = { v: 1, t: "seat_status", seat: cfg.seat, online, session: kept.session };
    if (online) Object.assign(msg, { boot: kept.boot, fw: FW, caps: CAPS, lang: i18n.lang });
    return JSON.stringify(msg);
  }

  function setLink(state, text) {
    body.dataset.link = state;
    $("status-line").textContent = text;
    refreshWaiting();
  }

  function connect() {
    kept.session = (kept.session + 1) % MAX_COUNTER; // differs from the last connection's
    save();
    const id = ++link.id;
    const options = { clientId: `${cfg.table}-seat${cfg.seat}`, clean: true,
                      keepalive: cfg.keepalive, reconnectPeriod: 0, connectTimeout: 5000,
                      will: { topic: T.status, payload: status(false), qos: 1, retain: true } };
    if (cfg.user) { options.username = cfg.user; options.password = cfg.pass || ""; }
    const client = mqtt.connect(cfg.ws, options);
    link.client = client;
    client.on("connect", () => {
      // The scene too: board.js's seat table takes each player's cards from it.
      const topics = [T.hub, T.view, T.ack, T.error, T.cmd, T.board, T.scene];
      client.subscribe(topics, { qos: 1 }, (err, granted) => {
        if (id !== link.id) return;
        if (err || granted.some((g) => g.qos > 2)) {
          setLink("refused", _("The broker refused this seat's subscriptions"));
          return;
        }
        // The birth goes out after the SUBACKs, so the hub's answer finds us listening.
        client.publish(T.status, status(true), { qos: 1, retain: true });
        link.up = true;
        setLink("up", _("connected"));
        resendAll();
      });
    });
    client.on("message", (topic, payload) => { if (id === link.id) receive(topic, payload); });
    client.on("error", (err) => {
      if (id !== link.id) return;
      const refused = /authori[sz]|password|bad user/i.test(String(err && err.message));
      setLink(refused ? "refused" : "down", refused
        ? _("The broker refused this seat's login: ask for a new QR code")
        : _("broker: {error}", { error: err && err.message }));
    });
    client.on("close", () => {
      if (id !== link.id) return;
      link.up = false;
      for (const e of outbox) e.inflight = false; // a new connection starts with nothing in flight
      client.end(true);
      link.id++;
      // A refused login stays refused (a rotated password): this page is cut off and
      // stops, leaving the seat's counters to the page of the new code.
      if (body.dataset.link === "refused") return;
      setLink("down", _("link lost: reconnecting…"));
      setTimeout(connect, RECONNECT_MS);
    });
  }

  // -- the outbox --------------------------------------------------------------
  function transmit(entry) {
    if (!link.up || entry.inflight) return; // one copy on the wire at most
    const id = link.id;
    entry.inflight = true;
    entry.sentAt = performance.now();
    entry.tries += 1;
    link.client.publish(T.event, JSON.stringify(entry.msg), { qos: 1 }, () => {
      if (id === link.id) entry.inflight = false;
    });
  }

  function resendAll() {
    // After a reconnect or a new hub birth: everything unanswered, oldest first (a copy
    // still awaiting its PUBACK on this connection is delivered by it).
    for (const e of outbox) { e.tries = 0; transmit(e); }
  }

  function retryDue() {
    const now = performance.now();
    for (const e of outbox) {
      const wait = Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** Math.max(0, e.tries - 1));
      if (e.sentAt === null || now - e.sentAt >= wait) transmit(e);
    }
    refreshWaiting();
  }

  function waiting() {
    const oldest = outbox[0];
    return Boolean(oldest && performance.now() - oldest.firstAt >= WAITING_MS);
  }

  function refreshWaiting() {
    const w = outbox.length > 0 && waiting();
    body.dataset.waiting = String(w);
    const line = $("status-line");
    if (outbox.length >= OUTBOX_CAPACITY) line.textContent = _("outbox full");
    else if (body.dataset.link === "up" && !link.hubOnline && link.hubSession !== null) {
      line.textContent = _("hub lost: your inputs wait for it");
    } else if (w && body.dataset.link === "up") line.textContent = _("waiting for the hub");
    else if (body.dataset.link === "up") line.textContent = _("connected");
  }

  function send(kind, fields) {
    if (outbox.length >= OUTBOX_CAPACITY) {
      notice(_("Outbox full: wait for the hub"));
      return false;
    }
    const seq = kept.next;
    kept.next = kept.next % (MAX_COUNTER - 1) + 1;
    const msg = Object.assign({ v: 1, t: "event", seat: cfg.seat, seq, kind }, fields);
    const entry = { seq, msg, sentAt: null, tries: 0, inflight: false,
                    firstAt: performance.now() };
    outbox.push(entry);
    last = msg;
    save(); // durable before it can be answered: a reload resends it
    hideNotice();
    transmit(entry);
    return true;
  }

  function close(seq) {
    const i = outbox.findIndex((e) => e.seq === seq);
    if (i < 0) return false; // answered already: a late copy
    outbox.splice(i, 1);
    save();
    refreshWaiting();
    return true;
  }

  // -- what the hub says -------------------------------------------------------
  function receive(topic, payload) {
    let msg;
    try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return resync(); }
    if (!msg || msg.v !== 1) {
      if (topic !== T.board && topic !== T.scene) notice(_(OWN_WORDS.version));
      return;
    }
    if (topic === T.board || topic === T.scene) {
      if (state.config) onMessage(topic, payload); // board.js draws it
    } else if (topic === T.hub && msg.t === "hub_status") {
      if (state.config) onMessage(topic, payload);
      const fresh = msg.online && (!link.hubOnline || msg.session !== link.hubSession);
      link.hubOnline = Boolean(msg.online);
      link.hubSession = msg.session;
      body.dataset.hub = String(link.hubOnline);
      refreshWaiting();
      if (fresh) resendAll(); // a hub that came back has none of what waited
    } else if (topic === T.view && msg.t === "view" && msg.seat === cfg.seat) {
      showView(msg);
    } else if (topic === T.ack && msg.t === "ack" && Number.isInteger(msg.seq)) {
      close(msg.seq);
    } else if (topic === T.error && msg.t === "error") {
      refused(msg);
    } else if (topic === T.cmd && msg.t === "cmd") {
      command(msg);
    } else {
      resync(); // something this seat cannot read: ask for everything again
    }
  }

  function resync() { send("resync", {}); }

  function refused(msg) {
    if (Number.isInteger(msg.seq) && !close(msg.seq)) return; // closed already: nothing to show
    let text;
    if (msg.code === "not_allowed" && msg.field === "seq") text = _(OWN_WORDS.seq);
    else if (["not_allowed", "schema", "unknown_seat"].includes(msg.code) && !msg.field) {
      text = String(msg.detail || "");
    } else if (OWN_WORDS[msg.code]) text = _(OWN_WORDS[msg.code]);
    else text = String(msg.detail || msg.code);
    body.dataset.refused = `${msg.code}: ${text}`; // the last refusal, for people debugging
    notice(text, !["duplicate", "stale"].includes(msg.code));
  }

  function notice(text, alarm = true) {
    const box = $("notice");
    box.textContent = text;
    box.hidden = false;
    box.classList.toggle("alarm", alarm);
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(hideNotice, NOTICE_MS);
  }
  function hideNotice() { $("notice").hidden = true; }

  function showView(view) {
    views += 1;
    body.dataset.views = String(views);
    body.dataset.active = String(Boolean(view.active));
    body.dataset.seatPhase = view.phase || "";
    const c = Array.isArray(view.colour) ? view.colour : [128, 128, 128];
    $("display").style.borderColor = `rgb(${c[0]},${c[1]},${c[2]})`;
    $("seat-name").textContent = view.name || seatWord();
    const list = $("lines");
    list.replaceChildren();
    // The hub writes this seat's lines in its language, logical (the "shaping" cap): the
    // page's direction lays out a right-to-left one.
    for (const line of view.lines || []) {
      const li = document.createElement("li");
      li.textContent = String(line);
      list.appendChild(li);
    }
    if (view.ring && view.ring.mode === "count") list.dataset.count = String(view.ring.value);
    else delete list.dataset.count;
    asked = Number.isInteger(view.enroll) && view.enroll >= 0 ? view.enroll : null;
    $("tap-card").hidden = asked === null;
    body.dataset.enroll = asked === null ? "" : String(asked);
    hideNotice();
  }

  // The keyboard deck's tag of the card at `position` of the deck's order, as a PC's
  // seat play taps it (risktable.cards.keyboard_deck): "4B42" ("KB") and 4 hex digits.
  function keyboardUid(position) {
    return "4B42" + position.toString(16).toUpperCase().padStart(4, "0");
  }

  function tapAsked() {
    if (asked === null) return;
    flushSteps();
    send("card", { uid: keyboardUid(asked) });
  }

  function command(cmd) {
    if (cmd.cmd === "arm_dice" && Number.isInteger(cmd.roll)
        && Number.isInteger(cmd.count) && cmd.count >= 1 && cmd.count <= 3) {
      // A roll begun before arming does not count: start the faces afresh.
      armed = { roll: cmd.roll, count: cmd.count };
      picked = [];
      showDice();
    } else if (cmd.cmd === "disarm" && armed && cmd.roll === armed.roll) {
      armed = null;
      showDice();
    } else if (cmd.cmd === "identify") {
      $("display").classList.add("identify");
      setTimeout(() => $("display").classList.remove("identify"),
                 1000 * (Number.isInteger(cmd.seconds) ? cmd.seconds : 5));
    } else if (cmd.cmd === "beep" && navigator.vibrate) {
      navigator.vibrate(Math.min(2000, Number(cmd.ms) || 100));
    }
  }

  // -- the player's inputs -----------------------------------------------------
  function flushSteps() {
    clearTimeout(stepsTimer);
    stepsTimer = null;
    while (pendingSteps !== 0) {
      const steps = Math.max(-MAX_STEPS, Math.min(MAX_STEPS, pendingSteps));
      if (!send("encoder", { steps })) { pendingSteps = 0; return; }
      pendingSteps -= steps;
    }
  }

  function turn(steps) {
    pendingSteps += steps;
    clearTimeout(stepsTimer);
    stepsTimer = setTimeout(flushSteps, ENCODER_SETTLE_MS);
  }

  function press(button) {
    flushSteps(); // the turn before a press reaches the hub before it
    if (button === "confirm" && waiting()) {
      // As the firmware: no Confirm made blind while the hub has not answered.
      notice(_("Waiting for the hub: Confirm not sent"));
      return;
    }
    send("button", { button, press: "short" });
  }

  // A hint: what the hard bot would do now (docs/bots.md, "The coach"), asked as a seat
  // asks it, with Confirm held down; the hub shows it on this seat's view only.
  function askHint() {
    flushSteps();
    send("button", { button: "confirm", press: "long" });
  }

  function showDice() {
    const panel = $("dice");
    panel.hidden = !armed;
    body.dataset.armed = armed ? String(armed.roll) : "";
    if (!armed) return;
    $("dice-title").textContent = ngettext("Roll {n} die: tap the face it shows",
                                           "Roll {n} dice: tap the faces they show", armed.count);
    $("dice-picked").textContent = picked.length ? picked.join(" · ") : "–";
  }

  function sendDice(faces, prefix) {
    if (!armed) return;
    flushSteps();
    const dice = faces.map((face, i) => ({ id: `${prefix}${i + 1}`, face, state: "settled" }));
    if (send("dice", { roll: armed.roll, dice })) {
      // The hub disarms the roll when it takes it, or arms it again when it does not.
      armed = null;
      picked = [];
      showDice();
    }
  }

  function tapFace(face) {
    if (!armed) return;
    picked.push(face);
    showDice();
    if (picked.length === armed.count) sendDice(picked.slice(), "m");
  }

  function rollHere() {
    if (!armed) return;
    const faces = [];
    while (faces.length < armed.count) {
      // 252 = 42 * 6: bytes above it are dropped so that every face is as likely.
      const b = crypto.getRandomValues(new Uint8Array(1))[0];
      if (b < 252) faces.push((b % 6) + 1);
    }
    sendDice(faces, "e");
  }

  function bind() {
    $("left").addEventListener("click", () => turn(-1));
    $("right").addEventListener("click", () => turn(1));
    $("confirm").addEventListener("click", () => press("confirm"));
    $("back").addEventListener("click", () => press("back"));
    $("ask-hint").addEventListener("click", askHint);
    for (const b of document.querySelectorAll(".face")) {
      b.addEventListener("click", () => tapFace(Number(b.dataset.face)));
    }
    $("dice-clear").addEventListener("click", () => { picked = []; showDice(); });
    $("dice-roll").addEventListener("click", rollHere);
    $("tap-card").addEventListener("click", tapAsked);
    // A sideways swipe over the display turns the encoder, a step per SWIPE_PX.
    let startX = null;
    const display = $("display");
    display.addEventListener("pointerdown", (e) => { startX = e.clientX; });
    display.addEventListener("pointerup", (e) => {
      if (startX === null) return;
      const steps = Math.trunc((e.clientX - startX) / SWIPE_PX);
      startX = null;
      if (steps) turn(steps);
    });
    display.addEventListener("pointercancel", () => { startX = null; });
  }

  async function drawBoard() {
    const [config, layout] = await Promise.all([
      fetch("config.json").then((r) => r.json()),
      fetch("board-map.json").then((r) => r.json()),
    ]);
    // board.js's own state: its map, colours and territory order, not a copy of them.
    state.config = Object.assign(config, { table: cfg.table });
    state.layout = layout;
    draw();
    window.addEventListener("resize", () => {
      if ((window.innerHeight > window.innerWidth) !== state.portrait) draw();
    });
  }

  function seatWord() { return _("Seat {n}", { n: cfg.seat }); }

  $("table").textContent = _("table {table}", { table: cfg.table });
  $("seat-name").textContent = seatWord();
  body.dataset.seat = String(cfg.seat);
  body.dataset.boot = String(kept.boot);
  save();
  bind();
  showDice();
  setInterval(retryDue, 100);
  drawBoard().finally(connect);
  // Tests and people debugging a table read the seat's state here.
  window.phoneSeat = { outbox: () => outbox.map((e) => e.msg), last: () => last,
                       cfg: { table: cfg.table, seat: cfg.seat }, boot: () => kept.boot };
})();
