// The live review page: one user (their own JWT, in the address's #token=...) on one layer
// of quire-server. It reads the layer once over HTTP (relayed by live_server.py), then
// keeps one WebSocket to quire-server (docs/sync-protocol.md, "WebSocket"): the change feed
// keeps the page's copy of the records current, pushes add notes, replies and review
// states, and presence says who else is here and what they have selected. Every record
// is the server's: the page shows what the feed says, its own pushes included (they come
// back in its feed). Plain JavaScript, no build step, nothing from elsewhere.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const documentId = params.get("document") || "";
const layer = params.get("layer") || "";
const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
const clientId = "web-" + randomHex(8); // one per page load: the pushes' idempotency keys and presence
const records = new Map(); // id -> {revision, record}: the layer as the feed has shown it
let seq = 0; // the last change the page holds
let clientSeq = 0; // increases with every mutation this page pushes
let pushId = 0;
let socket = null;
let selected = null; // the id of the annotation whose thread is shown
let closedForGood = false; // the server refused the token: reconnecting would not help
let fresh = new Set(); // ids the feed just brought, marked for a moment
// Pushes not answered yet, by id: sent again after a reconnect. A retry is safe: the server
// answers a (client_id, client_seq) it has seen with its first answer and applies nothing twice.
const unanswered = new Map();

function randomHex(bytes) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The token's user, for the header (quire-server verifies the token; the page only reads it).
function tokenUser() {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part + "=".repeat((4 - (part.length % 4)) % 4))).user_id || null;
  } catch (e) {
    return null;
  }
}
const me = tokenUser();

function showError(message) {
  const e = $("error");
  e.textContent = message;
  e.hidden = !message;
}

function setConnected(on, text) {
  document.body.dataset.connected = on ? "1" : "0";
  $("connection").dataset.text = text;
  showWaiting();
}

function showWaiting() {
  const waiting = unanswered.size;
  document.body.dataset.waiting = String(waiting);
  $("connection").textContent = $("connection").dataset.text + (waiting ? " (" + waiting + " waiting to be sent)" : "");
}

// ---- the records ---------------------------------------------------------------------------

const quireOf = (r) => r.quire || {};
const parentOf = (r) => quireOf(r).inReplyTo || null;
const isState = (r) => Boolean(quireOf(r).state);
const authorOf = (r) => r.creatorName || quireOf(r).creator || "";
const byline = (r) => (authorOf(r) ? authorOf(r) + ": " : "") + (textOf(r) || "(no text)");

function textOf(r) {
  const t = r.text;
  if (typeof t === "string") return t;
  if (t && typeof t.value === "string") return t.format === "xhtml" ? t.value.replace(/<[^>]*>/g, "") : t.value;
  return quireOf(r).contents || "";
}

function kindOf(r) {
  return String(r.type || "").replace(/^pspdfkit\//, "");
}

function byRevision(a, b) {
  return a.revision - b.revision || (a.record.id < b.record.id ? -1 : 1);
}

function roots() {
  return [...records.values()].filter((e) => !parentOf(e.record)).sort((a, b) =>
    a.record.pageIndex - b.record.pageIndex || byRevision(a, b));
}

function thread(id) {
  const all = [...records.values()].filter((e) => parentOf(e.record) === id).sort(byRevision);
  return { replies: all.filter((e) => !isState(e.record)), states: all.filter((e) => isState(e.record)) };
}

// ---- drawing -----------------------------------------------------------------------------------

function item(text, attributes) {
  const li = document.createElement("li");
  li.textContent = text;
  for (const [k, v] of Object.entries(attributes || {})) li.dataset[k] = v;
  return li;
}

function render() {
  const list = $("annotations");
  list.replaceChildren();
  for (const { record } of roots()) {
    const li = item("", { id: record.id });
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = kindOf(record) + ", page " + (record.pageIndex + 1) + ": ";
    const count = document.createElement("span");
    count.className = "count";
    const t = thread(record.id);
    count.textContent = t.replies.length ? t.replies.length + (t.replies.length === 1 ? " reply" : " replies") : "";
    li.append(count, kind, document.createTextNode(byline(record)));
    if (record.id === selected) li.classList.add("selected");
    if (fresh.has(record.id)) li.classList.add("fresh");
    li.addEventListener("click", () => select(record.id));
    list.append(li);
  }
  renderThread();
  fresh = new Set();
}

function renderThread() {
  const entry = selected !== null ? records.get(selected) : undefined;
  $("thread").hidden = !entry;
  if (!entry) return;
  const r = entry.record;
  $("thread-root").textContent = kindOf(r) + (authorOf(r) ? " by " + authorOf(r) : "") + ": " + (textOf(r) || "(no text)");
  const t = thread(selected);
  $("replies").replaceChildren(...t.replies.map((e) =>
    item(byline(e.record), { id: e.record.id, author: authorOf(e.record) })));
  $("states").replaceChildren(...t.states.map((e) =>
    item(stateLine(e.record), { id: e.record.id, state: quireOf(e.record).state })));
  const last = t.states[t.states.length - 1];
  $("review").textContent = last ? stateLine(last.record) : "No review state yet.";
}

function stateLine(r) {
  return (authorOf(r) || "someone") + ": " + quireOf(r).state;
}

function renderPresence(members) {
  const labelOf = (id) => {
    const e = records.get(id);
    return e ? kindOf(e.record) + " " + (textOf(e.record) || id).slice(0, 40) : id;
  };
  $("presence").replaceChildren(...members.map((m) => {
    const li = item((m.user_id || "anonymous") + (m.client_id === clientId ? " (you)" : ""),
      { user: m.user_id || "", client: m.client_id });
    if (m.client_id === clientId) li.classList.add("self");
    if (m.cursor && typeof m.cursor.selected === "string") {
      const c = document.createElement("span");
      c.className = "cursor";
      c.textContent = "looking at " + labelOf(m.cursor.selected);
      li.append(c);
    }
    return li;
  }));
}

function select(id) {
  selected = id;
  render();
  send({ type: "presence", cursor: { selected: id } }); // shown to the others
}

// ---- the server --------------------------------------------------------------------------------

async function fetchLayer() {
  const answer = await fetch("/documents/" + encodeURIComponent(documentId) + "/layers/" + encodeURIComponent(layer),
    { headers: { Authorization: "Bearer " + token }, cache: "no-store" });
  const body = await answer.json();
  if (!answer.ok) throw new Error((body.error && body.error.message) || "the layer could not be read (" + answer.status + ")");
  records.clear();
  for (const e of body.records) records.set(e.record.id, e);
  seq = body.seq;
  render();
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function applyChanges(body) {
  for (const c of body.changes) {
    if (c.op === "put") {
      records.set(c.id, { revision: c.seq, record: c.record });
      fresh.add(c.id);
    } else {
      records.delete(c.id);
    }
  }
  // With more to come, body.seq is the layer's: the next page starts after this one's
  // last change (a reconnect then asks for what is left).
  seq = body.more && body.changes.length ? body.changes[body.changes.length - 1].seq : body.seq;
  render();
}

async function onMessage(event) {
  const m = JSON.parse(event.data);
  if (m.type === "changes") {
    if (m.body.reset) { // older than what the server kept: read the layer again, then follow
      await fetchLayer();
      send({ type: "subscribe", since: seq });
    } else {
      applyChanges(m.body);
    }
  } else if (m.type === "presence") {
    renderPresence(m.body.presence);
  } else if (m.type === "results") {
    if (m.status < 500) unanswered.delete(m.id); // a 5xx (shutting down) is sent again after the reconnect
    showWaiting();
    if (m.status !== 200) {
      showError((m.body.error && m.body.error.message) || "the push was refused (" + m.status + ")");
      return;
    }
    const refused = m.body.results.filter((r) => r.status !== "accepted");
    showError(refused.map((r) => "refused (" + r.reason + "): " + r.message).join("; "));
  } else if (m.type === "error") {
    closedForGood = m.status === 401 || m.status === 403;
    showError(m.body.error.message);
  }
}

async function connect() {
  const config = await (await fetch("/config.json", { cache: "no-store" })).json();
  socket = new WebSocket(config.socket + "/documents/" + encodeURIComponent(documentId) + "/layers/" +
    encodeURIComponent(layer) + "/socket");
  socket.addEventListener("open", () => {
    send({ type: "hello", token: token, since: seq, client_id: clientId });
    for (const message of unanswered.values()) send(message);
    setConnected(true, "Live");
    if (selected !== null) send({ type: "presence", cursor: { selected: selected } });
  });
  socket.addEventListener("message", (event) => onMessage(event).catch((e) => showError(String(e.message || e))));
  socket.addEventListener("close", () => {
    setConnected(false, closedForGood ? "Disconnected" : "Reconnecting…");
    if (!closedForGood) setTimeout(() => connect().catch((e) => showError(String(e.message || e))), 1000);
  });
}

function push(mutation) {
  clientSeq += 1;
  pushId += 1;
  const message = { type: "push", id: pushId, body: { client_id: clientId, mutations: [{ client_seq: clientSeq, ...mutation }] } };
  unanswered.set(pushId, message);
  showWaiting();
  send(message); // not connected: sent when the connection is back
}

function newRecord(fields) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  return { v: 1, type: "pspdfkit/note", id: "web-" + randomHex(10), createdAt: now, updatedAt: now, ...fields };
}

$("note-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("note-text").value.trim();
  if (!text) return;
  const n = roots().length;
  const record = newRecord({ pageIndex: Number($("note-page").value) - 1, bbox: [36, 36 + 28 * (n % 24), 24, 24], text: text });
  push({ op: "put", id: record.id, base_revision: null, record: record });
  $("note-text").value = "";
  selected = record.id; // its thread shows when the feed brings it back
});

// A reply or a state is a note on the root's page, linked to it (Instant's and PDF's shape).
function answer(fields) {
  const root = records.get(selected);
  if (!root) return;
  const record = newRecord({ pageIndex: root.record.pageIndex, bbox: root.record.bbox, ...fields });
  push({ op: "put", id: record.id, base_revision: null, record: record });
}

$("reply-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("reply-text").value.trim();
  if (!text) return;
  answer({ text: text, quire: { inReplyTo: selected, replyType: "reply" } });
  $("reply-text").value = "";
});

$("state-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const state = $("review-state").value;
  answer({ text: (me || "someone") + " set the state to " + state,
    quire: { inReplyTo: selected, replyType: "reply", state: state, stateModel: "Review" } });
});

// ---- start ---------------------------------------------------------------------------------------

$("title").textContent = documentId + " / " + layer;
$("me").textContent = me ? "You are " + me : "";
if (!documentId || !layer || !token) {
  showError("Open this page as review.html?document=DOC&layer=LAYER#token=JWT (examples/web/README.md).");
  setConnected(false, "Not connected");
} else {
  fetchLayer().then(connect).catch((e) => {
    showError(String(e.message || e));
    setConnected(false, "Not connected");
  });
}
