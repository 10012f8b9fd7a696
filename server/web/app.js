// Orquestra web chat: sign-in (a token, or the demo's tenant picker), threads, SSE
// streaming with a live stage timeline, cards, a sortable table and an interactive Vega-Lite
// chart. No framework, no CDN, and
// nothing the page's Content-Security-Policy refuses: no inline script, style or handler, no eval.
// Every business word (assistant name, what a tenant is called, examples, topics, currency)
// comes from the deployment's profile (GET /v1/profile); the texts below hold only placeholders.
"use strict";
(() => {  // one scope: the Vega bundle defines globals of its own

// {tenant}: what a tenant is called ({Tenant} capitalised); {topics}: what one can ask about.
const TEXT = {
  pt: { loginIntro: "Entrar na demonstração como {tenant}:", loginIntroOne: "Entrar na demonstração:", enter: "Entrar",
        tokenIntro: "Cole o token de acesso emitido pelo seu provedor de identidade "
          + "(ou pelo comando orquestra token).", signOut: "Sair",
        newThread: "+ Nova conversa", newThreadTitle: "Nova conversa", switchTenant: "Trocar {tenant}",
        send: "Enviar", placeholder: "Pergunte sobre {topics}…", placeholderAny: "Pergunte sobre os seus dados…",
        examples: "Experimente perguntar:",
        deleteThread: "Apagar conversa", deleteConfirm: "Apagar a conversa “{title}”? Ela some para sempre.",
        sql: "SQL executado", row: "linha", rows: "linhas", truncated: "mostrando as primeiras linhas",
        error: "Erro", vs: "vs. período anterior", clarify: "Preciso de um detalhe:",
        answeredBy: "Respondido por", offline: "modelo offline (embutido)",
        rateUp: "Resposta certa", rateDown: "Resposta errada", commentHint: "O que estava errado? (opcional)",
        rateSend: "Enviar avaliação", rated: "Obrigado, avaliação registrada.",
        review: "Revisão", reviewTitle: "Fila de revisão", reviewEmpty: "Nada a revisar.",
        approve: "Aprovar", reject: "Rejeitar", approved: "Aprovada: exemplo nº {id}.",
        rejected: "Rejeitada.", unanswered: "sem resposta", complex: "devia ter perguntado de volta",
        back: "Voltar à conversa",
        offlineNote: "entende perguntas diretas sobre {topics}: contagens, somas e médias, listas, "
          + "séries por período e os maiores de um grupo. Para perguntas mais livres, configure um "
          + "modelo de linguagem." },
  en: { loginIntro: "Choose the {tenant} to enter the demo as:", loginIntroOne: "Enter the demo:", enter: "Enter",
        tokenIntro: "Paste the access token your identity provider issued "
          + "(or by the command orquestra token).", signOut: "Sign out",
        newThread: "+ New conversation", newThreadTitle: "New conversation", switchTenant: "Switch {tenant}",
        send: "Send", placeholder: "Ask about {topics}…", placeholderAny: "Ask about your data…",
        examples: "Try asking:",
        deleteThread: "Delete conversation", deleteConfirm: "Delete the conversation “{title}”? It is gone for good.",
        sql: "SQL that ran", row: "row", rows: "rows", truncated: "showing the first rows",
        error: "Error", vs: "vs. previous period", clarify: "I need one detail:",
        answeredBy: "Answered by", offline: "offline model (built in)",
        rateUp: "Right answer", rateDown: "Wrong answer", commentHint: "What was wrong? (optional)",
        rateSend: "Send rating", rated: "Thank you, rating saved.",
        review: "Review", reviewTitle: "Review queue", reviewEmpty: "Nothing to review.",
        approve: "Approve", reject: "Reject", approved: "Approved: example no. {id}.",
        rejected: "Rejected.", unanswered: "unanswered", complex: "should have asked back",
        back: "Back to the chat",
        offlineNote: "it understands direct questions about {topics}: counts, sums and averages, "
          + "lists, series by period and the largest of a group. For freer questions, configure "
          + "a language model." },
};
// Until /v1/profile answers (or if it cannot): business-neutral words only.
const NEUTRAL_PROFILE = { assistant_name: "Orquestra", languages: ["pt", "en"], default_language: "pt",
  tenant: { pt: { singular: "tenant", plural: "tenants" }, en: { singular: "tenant", plural: "tenants" } },
  locale: { pt: "pt-BR", en: "en-US" }, currency: "USD", examples: {}, topics: {} };
const state = { lang: localStorage.getItem("lang") || null, token: null, tenant: null, thread: null,
                devLogin: false, profile: NEUTRAL_PROFILE };
const $ = (id) => document.getElementById(id);
const capitalise = (word) => word.charAt(0).toUpperCase() + word.slice(1);
const tenantWord = () => (state.profile.tenant[state.lang] || state.profile.tenant[state.profile.default_language]).singular;
const topics = () => state.profile.topics[state.lang] || [];
const locale = () => state.profile.locale[state.lang] || state.lang;
function t(key) {
  if (key === "placeholder" && !topics().length) key = "placeholderAny";
  return TEXT[state.lang][key].replace("{tenant}", tenantWord()).replace("{Tenant}", capitalise(tenantWord()))
    .replace("{topics}", topics().join(", "));
}
const tenantLabel = (code) => `${capitalise(tenantWord())} ${code}`;
// Without tenants (tenancy: none) a person is who they signed in as, not a tenant.
const hasTenants = () => state.profile.tenancy !== "none";
const whoLabel = () => hasTenants() ? tenantLabel(state.tenant) : String(tokenClaims(state.token).sub ?? "");

async function loadProfile() {
  try {
    const response = await fetch("/v1/profile");
    if (response.ok) state.profile = { ...NEUTRAL_PROFILE, ...(await response.json()) };
  } catch { /* the neutral words stay */ }
  const { languages, default_language: fallback } = state.profile;
  if (!languages.includes(state.lang)) state.lang = languages.includes(fallback) ? fallback : languages[0];
  document.title = state.profile.assistant_name;
  document.querySelectorAll(".brand-name").forEach((el) => { el.textContent = state.profile.assistant_name; });
  // One language: nothing to switch to.
  document.querySelectorAll(".lang").forEach((el) => { el.hidden = languages.length < 2; });
}

function otherLanguage() {
  const { languages } = state.profile;
  return languages[(languages.indexOf(state.lang) + 1) % languages.length];
}

function applyLanguage() {
  document.documentElement.lang = locale();
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach((el) => {
    el.placeholder = t(el.dataset.i18nPlaceholder); });
  document.querySelectorAll(".lang").forEach((el) => { el.textContent = otherLanguage().toUpperCase(); });
  for (const option of $("tenant").options) option.text = pickerLabel(option.value);
  if (state.tenant) $("who").textContent = whoLabel();
  showExamples();
}

function pickerLabel(code) {
  const known = (state.profile.tenants || []).find((tenant) => tenant.code === code);
  return known && known.name ? `${tenantLabel(code)} · ${known.name}` : tenantLabel(code);
}

// The profile's example questions, on an empty conversation; a click asks one.
function showExamples() {
  const box = $("examples"); const questions = state.profile.examples[state.lang] || [];
  box.innerHTML = "";
  box.hidden = !questions.length || $("messages").childElementCount > 0;
  if (box.hidden) return;
  const title = document.createElement("span"); title.textContent = t("examples"); box.append(title);
  for (const question of questions) {
    const button = document.createElement("button"); button.type = "button"; button.className = "example";
    button.textContent = question; button.onclick = () => ask(question); box.append(button);
  }
}

async function api(path, options = {}, token = state.token) {
  const headers = { "Content-Type": "application/json", ...(options.headers || {}) };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { ...options, headers });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.message || `HTTP ${response.status}`);
  }
  return response;
}

// Whether this process mints demo tokens (`orquestra demo`, `serve --dev-login`). When the
// answer is anything but a plain yes, the page asks for a real token.
async function signInOptions() {
  try {
    const response = await fetch("/v1/auth/options");
    return response.ok && (await response.json()).dev_login === true;
  } catch { return false; }
}

// `reason`: why a saved session ended (the server's message, e.g. an expired token).
function showLogin(reason) {
  $("app").hidden = true; $("login").hidden = false;
  $("login-form").hidden = !state.devLogin; $("token-form").hidden = state.devLogin;
  if (!state.devLogin) {
    const error = $("token-error"); error.textContent = reason || ""; error.hidden = !reason;
    $("bearer").focus(); return;
  }
  // The tenants the server lists; none listed (too many, or no tenant table): a typed code.
  // Without tenants there is nothing to choose: the button alone signs in.
  const select = $("tenant"); select.innerHTML = "";
  const tenants = state.profile.tenants || [];
  for (const { code } of tenants) select.append(new Option(pickerLabel(code), code));
  select.hidden = !tenants.length || !hasTenants();
  $("tenant-code").hidden = Boolean(tenants.length) || !hasTenants();
  $("login-intro").dataset.i18n = hasTenants() ? "loginIntro" : "loginIntroOne";
  $("login-intro").textContent = t($("login-intro").dataset.i18n);
}

async function login(tenant) {
  const body = hasTenants() ? { tenant } : {};
  const response = await api("/v1/dev/token", { method: "POST", body: JSON.stringify(body) });
  const { token } = await response.json();
  await begin(token, tenant);
}

// The server checks the pasted token (a 401 carries its reason, shown as sent); the tenant
// shown comes from the token's payload, for display only: the server decides on every call.
async function loginWithToken(pasted) {
  const token = pasted.trim().replace(/^Bearer\s+/i, "");
  const error = $("token-error"); error.hidden = true;
  try { await api("/v1/threads", {}, token); } catch (failure) {
    error.textContent = failure.message; error.hidden = false; return;
  }
  $("bearer").value = "";
  await begin(token, String(tokenClaims(token).tenant ?? "?"));
}

function tokenClaims(token) {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch { return {}; }
}

async function begin(token, tenant) {
  Object.assign(state, { token, tenant, thread: null });
  sessionStorage.setItem("session", JSON.stringify({ token, tenant }));
  await showApp();
}

function signOut(reason) {
  sessionStorage.removeItem("session"); Object.assign(state, { token: null, tenant: null });
  showLogin(reason);
}

async function showApp() {
  $("login").hidden = true; $("app").hidden = false;
  $("who").textContent = whoLabel();
  newThread();
  await loadThreads();
  // The review page is for tokens with the reviewer role: the server says (403 otherwise).
  $("review").hidden = !(await fetch("/v1/review", { headers: { Authorization: `Bearer ${state.token}` } })).ok;
}

async function loadThreads() {
  const { threads } = await (await api("/v1/threads")).json();
  const nav = $("threads"); nav.innerHTML = "";
  for (const thread of threads) {
    const row = document.createElement("div"); row.className = "thread";
    const button = document.createElement("button");
    button.textContent = thread.title; button.dataset.thread = thread.thread_id;
    button.className = thread.thread_id === state.thread ? "active" : "";
    button.onclick = () => openThread(thread.thread_id, thread.title);
    const remove = document.createElement("button"); remove.className = "delete"; remove.textContent = "×";
    remove.title = t("deleteThread"); remove.setAttribute("aria-label", `${t("deleteThread")}: ${thread.title}`);
    remove.onclick = () => deleteThread(thread.thread_id, thread.title);
    row.append(button, remove); nav.append(row);
  }
}

// Asked first; the server deletes the thread with every checkpoint of it (404 if it is not
// this person's, 409 while it is answering). The list is read again either way.
async function deleteThread(id, title) {
  if (!window.confirm(t("deleteConfirm").replace("{title}", title))) return;
  try {
    await api(`/v1/threads/${id}`, { method: "DELETE" });
    if (state.thread === id) newThread();
  } catch (error) { window.alert(`${t("error")}: ${error.message}`); }
  await loadThreads();
}

function newThread() {
  $("chat").hidden = false; $("review-page").hidden = true;
  state.thread = null; $("messages").innerHTML = ""; $("title").textContent = t("newThreadTitle");
  showExamples();
}

async function openThread(id, title) {
  const data = await (await api(`/v1/threads/${id}`)).json();
  $("chat").hidden = false; $("review-page").hidden = true;
  state.thread = id; $("title").textContent = title; $("messages").innerHTML = "";
  $("examples").hidden = true;
  for (const message of data.messages) {
    if (message.role === "user") addUser(message.content);
    else addBot().answer.textContent = message.content;
  }
  $("sidebar").classList.remove("open");
  await loadThreads();
}

function addUser(text) {
  const div = document.createElement("div"); div.className = "msg user"; div.textContent = text;
  $("messages").append(div); return div;
}

function addBot() {
  const div = document.createElement("div"); div.className = "msg bot";
  const timeline = document.createElement("div"); timeline.className = "timeline";
  const answer = document.createElement("div"); answer.className = "answer";
  const extra = document.createElement("div");
  div.append(timeline, answer, extra); $("messages").append(div);
  return { div, timeline, answer, extra, stages: {} };
}

function scrollDown() { const m = $("messages"); m.scrollTop = m.scrollHeight; }

// Server-Sent Events over fetch (EventSource cannot POST or send a token).
async function* sse(response) {
  const reader = response.body.getReader(); const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
      let event = "message"; const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
    }
  }
}

async function ask(question) {
  $("examples").hidden = true;
  addUser(question); const bot = addBot(); scrollDown();
  $("send").disabled = true;
  try {
    const response = await api("/v1/chat/stream", { method: "POST",
      body: JSON.stringify({ message: question, thread_id: state.thread }) });
    for await (const { event, data } of sse(response)) handle(bot, event, data);
  } catch (error) {
    bot.answer.innerHTML = ""; const p = document.createElement("span"); p.className = "error";
    p.textContent = `${t("error")}: ${error.message}`; bot.answer.append(p);
  } finally { $("send").disabled = false; await loadThreads(); scrollDown(); }
}

function handle(bot, event, data) {
  if (event === "run") { state.thread = data.thread_id; bot.run = data.run_id; }
  else if (event === "node") {
    stage(bot, data);
  }
  else if (event === "sql") {
    const details = document.createElement("details"); details.className = "sql";
    const summary = document.createElement("summary");
    summary.textContent = `${t("sql")} (${data.attempt})`; details.append(summary);
    const pre = document.createElement("pre"); pre.textContent = data.sql; details.append(pre);
    bot.extra.append(details);
  } else if (event === "token") {
    // `reset`: the judges sent the draft back (or a rail withheld it); a revised text follows.
    if (data.reset) bot.answer.textContent = "";
    bot.answer.textContent += data.text; scrollDown();
  }
  else if (event === "clarify") {
    bot.div.classList.add("clarify"); bot.answer.textContent = `${t("clarify")} ${data.question}`;
  } else if (event === "result") result(bot, data);
  else if (event === "error") {
    const p = document.createElement("p"); p.className = "error";
    p.textContent = `${t("error")} [${data.code}]: ${data.message}`; bot.extra.append(p);
  }
}

function stage(bot, data) {
  let pill = bot.stages[data.node];
  if (!pill) {
    pill = document.createElement("span"); pill.className = "stage"; bot.stages[data.node] = pill;
    bot.timeline.append(pill);
  }
  pill.classList.toggle("running", data.status === "start");
  pill.textContent = data.status === "end" ? `${data.node} · ${Math.round(data.ms)} ms` : data.node;
  if (data.summary) pill.title = data.summary;
  pill.classList.toggle("blocked", Boolean(data.blocked_by));
}

function result(bot, data) {
  if (!bot.answer.textContent) bot.answer.textContent = data.answer;
  // `display`: how to write the result (the presenter's); `model`: which model answered.
  const shown = data.display; const model = data.model;
  const display = data.columns && shown && shown.columns.length === data.columns.length
    ? shown : null;
  if (data.cards && data.cards.length) bot.extra.append(cards(data.cards, display));
  if (data.chart && window.vegaEmbed) {
    const holder = document.createElement("div"); holder.className = "chart"; bot.extra.append(holder);
    window.vegaEmbed(holder, data.chart, VEGA_OPTIONS).catch(() => holder.remove());
  }
  // One row that the cards already show in full is not shown again as a table.
  const asCards = data.rows && data.rows.length === 1 && data.cards
    && data.cards.length === (data.columns || []).length;
  if (data.rows && data.rows.length && !asCards) bot.extra.append(table(data, display));
  if (model) bot.div.append(modelNote(model));
  if (bot.run) bot.div.append(rating(bot.run, state.thread));
}

// Up or down on one answer, with an optional comment (POST …/feedback): a turn rated (or
// one that could not answer) joins the review queue.
function rating(runId, threadId) {
  const bar = document.createElement("div"); bar.className = "rating";
  const comment = document.createElement("input"); comment.className = "comment";
  comment.placeholder = t("commentHint"); comment.maxLength = 2000; comment.hidden = true;
  const send = document.createElement("button"); send.className = "link"; send.textContent = t("rateSend");
  send.hidden = true;
  const done = document.createElement("span"); done.className = "rated";
  const rate = async (value) => {
    try {
      await api(`/v1/threads/${threadId}/feedback`, { method: "POST", body: JSON.stringify(
        { run_id: runId, rating: value, ...(comment.value.trim() ? { comment: comment.value.trim() } : {}) }) });
      bar.querySelectorAll("button, input").forEach((b) => { b.disabled = true; });
      done.textContent = t("rated");
    } catch (error) { done.textContent = `${t("error")}: ${error.message}`; }
  };
  const up = document.createElement("button"); up.className = "rate up"; up.textContent = "👍";
  up.title = t("rateUp"); up.setAttribute("aria-label", t("rateUp")); up.onclick = () => rate("up");
  const down = document.createElement("button"); down.className = "rate down"; down.textContent = "👎";
  down.title = t("rateDown"); down.setAttribute("aria-label", t("rateDown"));
  down.onclick = () => { comment.hidden = false; send.hidden = false; comment.focus(); };
  send.onclick = () => rate("down");
  bar.append(up, down, comment, send, done); return bar;
}

// The review page (reviewers): the tenant's queue, each turn with its SQL to correct, and
// approve (the SQL runs as the turn's tenant first; its rows are shown) or reject.
async function showReview() {
  $("chat").hidden = true; $("review-page").hidden = false; $("title").textContent = t("reviewTitle");
  const list = $("review-list"); list.innerHTML = "";
  const { turns } = await (await api("/v1/review")).json();
  if (!turns.length) { const p = document.createElement("p"); p.textContent = t("reviewEmpty"); list.append(p); }
  for (const turn of turns) list.append(await reviewItem(turn.id));
}

async function reviewItem(id) {
  const turn = await (await api(`/v1/review/${id}`)).json();
  const item = document.createElement("article"); item.className = "review-item"; item.dataset.turn = id;
  const head = document.createElement("h3"); head.textContent = turn.question;
  const meta = document.createElement("p"); meta.className = "review-meta";
  meta.textContent = [turn.route, turn.rating === "down" ? "👎" : turn.rating === "up" ? "👍" : t("unanswered"),
                      turn.comment || ""].filter(Boolean).join(" · ");
  const sql = document.createElement("textarea"); sql.className = "review-sql"; sql.rows = 5;
  sql.value = turn.sql || ""; sql.spellcheck = false;
  const complex = document.createElement("label"); const box = document.createElement("input");
  box.type = "checkbox"; complex.append(box, ` ${t("complex")}`);
  const approve = document.createElement("button"); approve.textContent = t("approve"); approve.className = "approve";
  const reject = document.createElement("button"); reject.textContent = t("reject"); reject.className = "link";
  const out = document.createElement("div"); out.className = "review-out";
  approve.onclick = async () => {
    out.innerHTML = "";
    try {
      const done = await (await api(`/v1/review/${id}/approve`, { method: "POST", body: JSON.stringify(
        { sql: sql.value, complexity: box.checked ? "complex" : "simple" }) })).json();
      const p = document.createElement("p"); p.textContent = t("approved").replace("{id}", done.example_id);
      out.append(p, table(done, null)); approve.disabled = reject.disabled = true;
    } catch (error) { const p = document.createElement("p"); p.className = "error"; p.textContent = error.message; out.append(p); }
  };
  reject.onclick = async () => {
    await api(`/v1/review/${id}/reject`, { method: "POST", body: "{}" });
    out.textContent = t("rejected"); approve.disabled = reject.disabled = true;
  };
  item.append(head, meta, sql, complex, approve, reject, out); return item;
}

// Which model wrote the answer; for the offline one, what kinds of question it handles.
function modelNote(model) {
  const note = document.createElement("div"); note.className = "model";
  const offline = model === "offline";
  note.textContent = `${t("answeredBy")}: ${offline ? t("offline") : model}`
    + (offline ? ` — ${t("offlineNote")}` : "");
  note.dataset.model = model; return note;
}

// `ast: true` makes vega-embed run Vega's expressions through the vega-interpreter it bundles
// instead of compiling them with `new Function` (which the policy refuses). The <style>
// elements vega-embed and its tooltip would add are off; app.css carries their rules.
// SVG, not canvas: axis labels are text a screen reader (and a test) can read.
const VEGA_OPTIONS = { actions: false, ast: true, defaultStyle: false, renderer: "svg",
                       tooltip: { disableDefaultStyle: true } };

// A card's unit: "money" (the profile's currency), an ISO 4217 code, "ratio" (a share from 0
// to 1, as a percentage), or anything else as a number.
function format(value, unit, display) {
  if (typeof value !== "number") return String(value ?? "—");
  const where = display ? display.locale : locale();
  if (unit === "ratio") return percent(where).format(value);
  const currency = unit === "money" ? (display || state.profile).currency
    : /^[A-Z]{3}$/.test(unit || "") ? unit : null;
  return currency ? value.toLocaleString(where, { style: "currency", currency })
                  : value.toLocaleString(where, { maximumFractionDigits: 2 });
}

function percent(where) {
  return new Intl.NumberFormat(where, { style: "percent", maximumFractionDigits: 1 });
}

// A cell's text from its column's kind (the server decides kinds and units from the catalog):
// money in its currency, counts with separators, periods as their format says ("06/2026"),
// times in the deployment's time zone, keys and codes as they are.
function cellFormatter(column, display) {
  const where = display.locale; const zone = display.timezone || "UTC";
  if (column.kind === "money") {
    const money = new Intl.NumberFormat(where, { style: "currency", currency: column.unit });
    return (v) => (typeof v === "number" ? money.format(v) : String(v ?? ""));
  }
  if (column.kind === "percent") {
    const share = percent(where);
    return (v) => (typeof v === "number" ? share.format(v) : String(v ?? ""));
  }
  if (column.kind === "number" || column.kind === "integer") {
    const digits = column.kind === "integer" ? 0 : 2;
    const number = new Intl.NumberFormat(where, { maximumFractionDigits: digits });
    const unit = column.unit ? ` ${column.unit}` : "";
    return (v) => (typeof v === "number" ? number.format(v) + unit : String(v ?? ""));
  }
  if (column.kind === "period") return (v) => periodText(v, column.format, zone, where);
  if (column.kind === "time") return (v) => timeText(v, zone, where);
  return (v) => String(v ?? "");
}

// An instant (an offset or Z: a timestamptz) is shown in the deployment's time zone. A date
// alone ("2026-06-01") or a wall-clock time (no offset: a timestamp) is not an instant: it is
// shown as written, read and formatted in UTC so that nothing shifts it.
const isDateOnly = (value) => /^\d{4}-\d{2}-\d{2}$/.test(value);
const isWallClock = (value) => !/(Z|[+-]\d{2}:?\d{2})$/.test(value);

function instant(value, zone) {
  if (!isWallClock(value)) return { moment: new Date(value), timeZone: zone };
  return { moment: new Date(isDateOnly(value) ? value : `${value}Z`), timeZone: "UTC" };
}

function localParts(value, zone) {
  const { moment, timeZone } = instant(value, zone);
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit",
    day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(moment);
  return Object.fromEntries(parts.map((part) => [part.type, part.value]));
}

// A d3-style time format ("%m/%Y", "Q%q %Y", "%b %Y") over the period's local date.
function periodText(value, form, zone, where) {
  if (typeof value !== "string" || !form) return String(value ?? "");
  const p = localParts(value, zone);
  const month = Number(p.month);
  const short = new Intl.DateTimeFormat(where, { month: "short", timeZone: "UTC" })
    .format(Date.UTC(2000, month - 1, 1)).replace(".", "");
  return form.replace(/%([YmdqbB])/g, (_, code) => ({ Y: p.year, m: p.month, d: p.day,
    q: String(Math.floor((month - 1) / 3) + 1), b: capitalise(short), B: capitalise(short) })[code]);
}

function timeText(value, zone, where) {
  if (typeof value !== "string") return String(value ?? "");
  const p = localParts(value, zone); const { moment, timeZone } = instant(value, zone);
  const dateOnly = isDateOnly(value) || (p.hour === "00" && p.minute === "00");
  return new Intl.DateTimeFormat(where, { timeZone, dateStyle: "short",
    ...(dateOnly ? {} : { timeStyle: "short" }) }).format(moment);
}

// `display` (the presenter's): each card's readable label and period, and the turn's locale.
function cards(items, display) {
  const box = document.createElement("div"); box.className = "cards";
  items.forEach((card, index) => {
    const shown = (display && display.cards[index]) || {};
    const kpi = document.createElement("div"); kpi.className = "kpi";
    const change = card.delta_pct == null ? "" : card.delta_pct.toLocaleString(
      display ? display.locale : locale(), { maximumFractionDigits: 1, signDisplay: "exceptZero" });
    const delta = card.delta_pct == null ? "" :
      `<div class="delta ${card.delta_pct >= 0 ? "up" : "down"}">${change}% ${t("vs")}</div>`;
    kpi.innerHTML = `<div class="label"></div><div class="value"></div><div class="period"></div>${delta}`;
    kpi.querySelector(".label").textContent = shown.label || card.label.replace(/_/g, " ");
    kpi.querySelector(".value").textContent = format(card.value, card.unit, display);
    kpi.querySelector(".period").textContent = shown.period || "";
    box.append(kpi);
  });
  return box;
}

function cell(value) {
  // Dates and times as people read them, in their own time zone; everything else as sent.
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const moment = new Date(value);
    return moment.getHours() || moment.getMinutes() ? moment.toLocaleString(locale())
                                                     : moment.toLocaleDateString(locale());
  }
  return value ?? "";
}

const NUMERIC = new Set(["money", "percent", "number", "integer"]);

// Cells written as the answer is (`display`: the presenter's per-column kinds); sorting a
// column still compares the raw values.
function table(data, display) {
  const wrap = document.createElement("div"); wrap.className = "table-wrap";
  const tableEl = document.createElement("table"); const head = tableEl.createTHead().insertRow();
  const body = tableEl.createTBody(); let rows = data.rows.slice(0, 200); let order = 1;
  const columns = display ? display.columns : data.columns.map((name) => ({ name, label: name }));
  const writers = columns.map((column) => (display ? cellFormatter(column, display) : cell));
  const numeric = columns.map((column) => NUMERIC.has(column.kind));
  const fill = () => {
    body.innerHTML = "";
    for (const row of rows) {
      const tr = body.insertRow();
      row.forEach((v, i) => {
        const td = tr.insertCell(); td.textContent = writers[i](v);
        if (numeric[i]) td.className = "num";
      });
    }
  };
  columns.forEach(({ label }, index) => {
    const th = document.createElement("th"); th.textContent = label; head.append(th);
    if (numeric[index]) th.className = "num";
    th.onclick = () => {
      order = -order;
      rows = [...rows].sort((a, b) => (a[index] > b[index] ? 1 : a[index] < b[index] ? -1 : 0) * order);
      fill();
    };
  });
  fill(); wrap.append(tableEl);
  const note = document.createElement("div"); note.className = "note";
  // Singular for exactly one, as core/texts.py `plural` writes it ("0 linhas", "1 linha").
  note.textContent = `${data.row_count} ${t(data.row_count === 1 ? "row" : "rows")}${data.truncated ? ` · ${t("truncated")}` : ""}`;
  wrap.append(note); return wrap;
}

async function start() {
  [state.devLogin] = await Promise.all([signInOptions(), loadProfile()]);
  $("switch").dataset.i18n = state.devLogin && hasTenants() ? "switchTenant" : "signOut";
  applyLanguage();
  $("login-form").onsubmit = (e) => {
    e.preventDefault(); login($("tenant").hidden ? $("tenant-code").value.trim() : $("tenant").value);
  };
  $("token-form").onsubmit = (e) => { e.preventDefault(); loginWithToken($("bearer").value); };
  $("ask").onsubmit = (e) => {
    e.preventDefault(); const q = $("question").value.trim();
    if (q) { $("question").value = ""; ask(q); }
  };
  $("new-thread").onclick = () => { newThread(); loadThreads(); };
  $("review").onclick = () => showReview();
  $("review-back").onclick = () => newThread();
  $("switch").onclick = () => signOut();
  document.querySelectorAll(".lang").forEach((button) => { button.onclick = () => {
    state.lang = otherLanguage(); localStorage.setItem("lang", state.lang); applyLanguage();
  }; });
  $("menu").onclick = () => $("sidebar").classList.toggle("open");
  const saved = JSON.parse(sessionStorage.getItem("session") || "null");
  if (saved) {
    Object.assign(state, saved);
    showApp().catch((failure) => signOut(failure.message));
  } else showLogin();
}
document.addEventListener("DOMContentLoaded", start);
})();
