// The pages' words: the page's language and its catalogue (/i18n/<lang>.json, which the
// hub's page server makes from its gettext catalogues), and the calls that mark and
// translate a message. Babel's JavaScript extractor finds the messages in the pages'
// scripts by these calls' names (python -m risktable.i18n.catalogues extract).
//
// A message's numbers and names go in as {name} fields, never by joining strings: a
// translation may put them in another order.
"use strict";

const i18n = {
  lang: "en",
  rtl: false,
  languages: { en: "English" },
  messages: {},
  plural: (n) => (n === 1 ? 0 : 1), // English's, for a message the catalogue lacks
  // How the language writes numbers (the catalogue's "numbers", from the hub's Babel):
  // its decimal sign, its percent pattern, its ten digits (Persian ۰-۹).
  numbers: { decimal: ".", percent: "{n}%", digits: "0123456789" },
  ready: null,
};

// A number as the page's language writes it, with ``places`` decimals.
function numberText(x, places = 0) {
  const [whole, part] = Number(x).toFixed(places).split(".");
  const text = part === undefined ? whole : whole + i18n.numbers.decimal + part;
  return text.replace(/[0-9]/g, (d) => i18n.numbers.digits[Number(d)]);
}

// A fraction (0.916) as a percentage with one decimal: 91.6%, %91,6, 91,6 %, ۹۱٫۶٪.
function percentText(fraction, places = 1) {
  return i18n.numbers.percent.replace("{n}", numberText(100 * fraction, places));
}

// A message's {name} fields filled in; a number in the language's digits.
function fill(text, fields) {
  if (!fields) return text;
  return text.replace(/\{(\w+)\}/g, (whole, key) => {
    if (!(key in fields)) return whole;
    const value = fields[key];
    return typeof value === "number" ? numberText(value) : String(value);
  });
}

// The message itself (English) when the catalogue has no translation of it.
function _(message, fields) {
  const found = i18n.messages[message];
  return fill(typeof found === "string" ? found : message, fields);
}

function ngettext(singular, plural, n, fields) {
  const forms = i18n.messages[singular];
  const all = Object.assign({ n }, fields);
  if (Array.isArray(forms)) return fill(forms[i18n.plural(n)] ?? forms[forms.length - 1], all);
  return fill(n === 1 ? singular : plural, all);
}

function pgettext(context, message, fields) {
  const found = i18n.messages[`${context}\u0004${message}`];
  return fill(typeof found === "string" ? found : message, fields);
}

// Marks a message for the catalogue where the page only names it; _() translates it
// where it is shown.
function N_(message) { return message; }

// A name from the board's data (a territory, a continent, a colour): not a literal the
// extractor could find, so the catalogue gets these names from the board data itself.
function nameOf(context, name) { return pgettext(context, name); }

// A game phase's name (the protocol's setup, reinforce, attack, fortify, over).
const PHASES = {
  setup: () => pgettext("phase", "setup"),
  reinforce: () => pgettext("phase", "reinforce"),
  attack: () => pgettext("phase", "attack"),
  fortify: () => pgettext("phase", "fortify"),
  over: () => pgettext("phase", "over"),
};
function phaseName(phase) { return PHASES[phase] ? PHASES[phase]() : phase; }

// A board message's turn line: whose turn it is, the phase, the round.
function turnLine(turn, who) {
  const t = { who, seat: turn.seat, round: turn.round, phase: phaseName(turn.phase) };
  if (turn.phase === "over") {
    return t.round === undefined ? _("game over: {who} (seat {seat})", t)
      : _("game over: {who} (seat {seat}) · round {round}", t);
  }
  return t.round === undefined ? _("{who} (seat {seat}) · {phase}", t)
    : _("{who} (seat {seat}) · {phase} · round {round}", t);
}

// The language asked for: ?lang=xx in the address, else the browser's, else English.
function wantedLanguage(known) {
  const asked = new URLSearchParams(location.search).get("lang");
  const wanted = [asked, ...(navigator.languages || [navigator.language])];
  for (const tag of wanted) {
    const code = String(tag || "").toLowerCase().split("-")[0];
    if (Object.prototype.hasOwnProperty.call(known, code)) return code;
  }
  return "en";
}

// The page's fixed words: each element's text (or, for "aria-label" and "title", that
// attribute) translated from the marked message.
function translatePage(texts) {
  for (const [id, message] of Object.entries(texts)) {
    const node = id === "title" ? null : document.getElementById(id);
    if (id === "title") document.title = _(message);
    else if (node && node.dataset.i18nAttr) node.setAttribute(node.dataset.i18nAttr, _(message));
    else if (node) node.textContent = _(message);
  }
}

// The language menu: choosing one reloads the page in it (the fragment, a phone seat's
// account, is kept).
function languageMenu(select) {
  select.replaceChildren();
  for (const [code, name] of Object.entries(i18n.languages)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.lang = code;
    option.selected = code === i18n.lang;
    select.appendChild(option);
  }
  select.addEventListener("change", () => {
    const url = new URL(location.href);
    url.searchParams.set("lang", select.value);
    location.replace(url.href);
  });
}

i18n.ready = (async () => {
  try {
    const index = await fetch("i18n/languages.json").then((r) => r.json());
    i18n.languages = index.languages;
    const lang = wantedLanguage(index.languages);
    const doc = await fetch(`i18n/${lang}.json`).then((r) => r.json());
    i18n.lang = doc.lang;
    i18n.rtl = doc.rtl;
    i18n.messages = doc.messages;
    if (doc.numbers) i18n.numbers = doc.numbers;
    // The rule is the catalogue's own gettext expression of n (C syntax, which is also
    // JavaScript's), checked by the hub's gettext when it loaded the catalogue.
    i18n.plural = new Function("n", `return Number(${doc.plural});`);
  } catch (e) {
    // No catalogue reached: the page still works, in English.
  }
  document.documentElement.lang = i18n.lang;
  document.documentElement.dir = i18n.rtl ? "rtl" : "ltr";
  const menu = document.getElementById("lang");
  if (menu) languageMenu(menu);
  document.body.dataset.lang = i18n.lang;
  return i18n;
})();
