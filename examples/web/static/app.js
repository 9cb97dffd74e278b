// The review page: shows the page image the server rendered, sends pointer events in the
// image's device pixels (the server converts them with quire.device_to_page), and shows the
// state every answer carries: the annotations, the selection (several, with handles), what
// the current tool is drawing (the tool manager's preview), the thread of the selection
// (replies and review states), what undo and redo would do. Each reviewer (the name in the
// tool bar) has a tool manager of their own on the server: their author name, colours,
// width and undo history. Plain JavaScript, no build step, nothing from elsewhere.
"use strict";

const DRAG_THRESHOLD = 4; // CSS pixels a press must travel to be a drag, not a tap

const $ = (id) => document.getElementById(id);
const image = $("page");
const overlay = $("overlay");
const SVG = "http://www.w3.org/2000/svg";

let state = null;       // the server's last answer
let pageIndex = 0;
let zoom = 1;
let user = localStorage.getItem("quire-review-user") || "Reviewer";
let pending = 0;        // requests queued or in flight
let imageLoaded = false;
const queue = [];       // requests waiting, sent one at a time in order
let pumping = false;
let scrollTo = null;    // an annotation to bring into view once the state shows it

$("user").value = user;

// ---- talking to the server -------------------------------------------------------------------

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
}

function updateIdle() {
  const idle = pending === 0 && imageLoaded;
  document.body.dataset.idle = idle ? "1" : "0";
  let text = "Working…";
  if (idle && state) {
    text = state.unsaved ? "Unsaved changes (Save writes " + state.output + ")."
      : state.revision === 0 ? "No changes yet." : "Saved to " + state.output + ".";
  }
  $("status").textContent = text;
}

function stateURL(page) {
  return "/api/state?page=" + page + "&zoom=" + zoom + "&user=" + encodeURIComponent(user);
}

// Queues a request: POST `path` with `body` (or GET when body is null). A drag move
// replaces a move still waiting, so a fast hand does not queue hundreds of them.
function request(path, body) {
  return new Promise((resolve) => {
    const last = queue[queue.length - 1];
    if (body && body.kind === "drag_move" && last && last.body && last.body.kind === "drag_move") {
      last.body = body;
      last.resolvers.push(resolve);
      return;
    }
    queue.push({ path, body, resolvers: [resolve] });
    pending++;
    updateIdle();
    pump();
  });
}

async function pump() {
  if (pumping) return;
  pumping = true;
  while (queue.length > 0) {
    const item = queue.shift();
    let answer = null;
    try {
      const response = await fetch(item.path, item.body === null
        ? { cache: "no-store" }
        : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(item.body) });
      const value = await response.json().catch(() => null);
      if (!response.ok) {
        const error = value && value.error ? value.error : { code: String(response.status), message: response.statusText };
        showError(error.message + " (" + error.code + ")");
        // Keep the page true to the server even after a refused action.
        if (item.body !== null) {
          queue.unshift({ path: stateURL(pageIndex), body: null, resolvers: [] });
          pending++;
        }
      } else {
        if (item.body !== null) clearError();
        answer = value;
        show(value);
      }
    } catch (error) {
      showError("The server cannot be reached: " + error.message);
    }
    pending--;
    item.resolvers.forEach((resolve) => resolve(answer));
    updateIdle();
  }
  pumping = false;
}

function post(path, body) {
  return request(path, Object.assign({ page: pageIndex, zoom, user }, body || {}));
}

// ---- showing the state -----------------------------------------------------------------------

function box(className, device) {
  const node = document.createElement("div");
  node.className = className;
  node.style.left = device[0] + "px";
  node.style.top = device[1] + "px";
  node.style.width = (device[2] - device[0]) + "px";
  node.style.height = (device[3] - device[1]) + "px";
  overlay.appendChild(node);
  return node;
}

function text(node, value) {
  node.textContent = value;
  return node;
}

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return isNaN(date) ? "" : date.toLocaleString();
}

// What the tool manager says the current tool is drawing: a drag's rectangle, a segment,
// ink strokes, polygon vertices, a move or resize of the selection, a rubber band.
function drawPreview(preview, color) {
  if (!preview) return;
  if (preview.kind === "rect" || preview.kind === "move" || preview.kind === "resize" || preview.kind === "select") {
    const node = box("preview " + preview.kind, preview.device);
    if (preview.tool === "highlight") {
      node.classList.add("highlight");
      node.style.background = state.style.highlight;
    }
    return;
  }
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", preview.kind === "ink" ? "ink" : "shape");
  svg.setAttribute("viewBox", "0 0 " + state.image.width + " " + state.image.height);
  for (const path of preview.paths) {
    const shape = document.createElementNS(SVG, preview.closed ? "polygon" : "polyline");
    shape.setAttribute("points", path.map((p) => p[0] + "," + p[1]).join(" "));
    shape.setAttribute("stroke", color);
    svg.appendChild(shape);
  }
  overlay.appendChild(svg);
}

function showThread(thread) {
  const section = $("thread");
  section.hidden = !thread;
  if (!thread) return;
  const replies = $("replies");
  replies.textContent = "";
  for (const r of thread.replies) {
    const item = document.createElement("li");
    item.appendChild(text(document.createElement("span"), r.author || "Someone")).className = "who";
    item.appendChild(document.createTextNode(": " + (r.contents || "")));
    item.appendChild(document.createElement("br"));
    item.appendChild(text(document.createElement("span"), when(r.created))).className = "when";
    replies.appendChild(item);
  }
  if (thread.replies.length === 0) replies.appendChild(text(document.createElement("li"), "No replies yet."));
  const review = $("review");
  review.textContent = "";
  if (thread.states.length === 0) review.textContent = "No review state yet.";
  for (const s of thread.states) {
    const tag = text(document.createElement("span"), (s.author || "Someone") + ": " + s.state);
    tag.className = "state " + s.state;
    review.appendChild(tag);
  }
  const history = $("history");
  history.textContent = "";
  for (const s of thread.history) {
    const item = document.createElement("li");
    item.appendChild(text(document.createElement("span"), s.author || "Someone")).className = "who";
    item.appendChild(document.createTextNode(" set " + s.state + " "));
    item.appendChild(text(document.createElement("span"), when(s.created))).className = "when";
    history.appendChild(item);
  }
}

function show(value) {
  const newImage = !state || state.image.url !== value.image.url;
  state = value;
  pageIndex = value.page;
  zoom = value.zoom;
  document.body.dataset.tool = value.tool;
  document.body.dataset.revision = String(value.revision);
  document.body.dataset.selection = value.selection === null ? "" : String(value.selection);
  document.body.dataset.selected = value.selected.join(" ");
  $("title").textContent = value.document;
  $("page-number").textContent = (value.page + 1) + " / " + value.page_count;
  $("previous").disabled = value.page === 0;
  $("next").disabled = value.page + 1 >= value.page_count;
  for (const button of document.querySelectorAll("[data-tool]")) {
    button.setAttribute("aria-pressed", button.dataset.tool === value.tool ? "true" : "false");
  }
  // The reviewer's style, unless they are editing it now.
  if (document.activeElement !== $("color")) $("color").value = value.style.color;
  if (document.activeElement !== $("highlight-color")) $("highlight-color").value = value.style.highlight;
  if (document.activeElement !== $("width")) $("width").value = value.style.border_width;
  const zoomSelect = $("zoom");
  if (zoomSelect.options.length !== value.zooms.length) {
    zoomSelect.textContent = "";
    for (const z of value.zooms) zoomSelect.appendChild(new Option(Math.round(z * 100) + "%", String(z)));
  }
  zoomSelect.value = String(value.zoom);
  $("zoom-out").disabled = value.zoom <= value.zooms[0];
  $("zoom-in").disabled = value.zoom >= value.zooms[value.zooms.length - 1];
  // Undo and redo say what they would do.
  $("undo").disabled = value.undo === null;
  $("undo").title = value.undo === null ? "Nothing to undo" : "Undo " + value.undo + " (Ctrl+Z)";
  $("redo").disabled = value.redo === null;
  $("redo").title = value.redo === null ? "Nothing to redo" : "Redo " + value.redo + " (Ctrl+Y)";
  if (newImage) {
    imageLoaded = false;
    image.width = value.image.width;
    image.height = value.image.height;
    image.src = value.image.url;
  }
  // The annotations, the selection's outlines and handles, the preview over the image.
  const list = $("annotations");
  list.textContent = "";
  overlay.textContent = "";
  let selected = null;
  for (const a of value.annotations) {
    const item = document.createElement("li");
    if (a.color) {
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = a.color;
      item.appendChild(swatch);
    }
    item.appendChild(document.createTextNode(a.subtype + " " + a.object + (a.author ? " by " + a.author : "") +
      (a.contents ? ": " + a.contents : "") + (a.replies ? " (" + a.replies + (a.replies === 1 ? " reply)" : " replies)") : "")));
    item.dataset.object = a.object;
    item.title = "Select it (Shift: add it to the selection)";
    item.addEventListener("click", (event) => {
      scrollTo = a.object;
      post("/api/select", { object: a.object, shift: event.shiftKey });
    });
    if (a.selected) {
      item.className = "selected";
      if (a.object === value.selection) selected = a;
      box("selection", a.device).dataset.object = a.object;
    }
    list.appendChild(item);
  }
  for (const h of value.handles) {
    const handle = document.createElement("div");
    handle.className = "handle";
    handle.style.left = h[0] + "px";
    handle.style.top = h[1] + "px";
    overlay.appendChild(handle);
  }
  drawPreview(value.preview, value.style.color);
  // The annotation picked in the list: scrolled into view.
  if (scrollTo !== null) {
    const outline = overlay.querySelector('.selection[data-object="' + scrollTo + '"]');
    if (outline) outline.scrollIntoView({ block: "center", inline: "center" });
    scrollTo = null;
  }
  const comment = $("comment");
  // A form field's widget: the box edits the field's value (form filling's
  // set_field_value); any other annotation: its comment (/Contents).
  const field = selected ? selected.field : null;
  $("comment-label").textContent = field ? "Value of " + field.name + " (" + field.type.replace("_", " ") + ")" : "Comment";
  $("set-comment").textContent = field ? "Set value" : "Set comment";
  $("options").textContent = field && field.options.length ? "Choices: " + field.options.join(", ") : "";
  const several = value.selected.length > 1;
  if (selected) {
    $("selected").textContent = several ? value.selected.length + " annotations (the first: " + selected.subtype + " " + selected.object + ")"
      : selected.subtype + " " + selected.object + (selected.author && !field ? " by " + selected.author : "");
    if (document.activeElement !== comment || comment.dataset.object !== String(selected.object)) {
      comment.value = (field ? field.value : selected.contents) || "";
    }
    comment.dataset.object = String(selected.object);
  } else {
    $("selected").textContent = "Nothing is selected.";
    comment.value = "";
    comment.dataset.object = "";
  }
  comment.disabled = !selected || several;
  $("set-comment").disabled = !selected || several;
  $("delete").disabled = value.selected.length === 0;
  showThread(several || field ? null : value.thread);
  const states = $("review-state");
  if (states.options.length !== value.states.length) {
    states.textContent = "";
    for (const s of value.states) states.appendChild(new Option(s, s));
  }
  const events = $("events");
  if (value.events.length > 0) {
    events.textContent = "";
    for (const line of value.events) events.appendChild(text(document.createElement("li"), line));
  }
}

image.addEventListener("load", () => { imageLoaded = true; updateIdle(); });
image.addEventListener("error", () => { imageLoaded = true; showError("The page image could not be loaded."); updateIdle(); });

// ---- pointer events ------------------------------------------------------------------------------

// A pointer position in the image's device pixels (the image may be shown scaled).
function devicePoint(event) {
  const rect = image.getBoundingClientRect();
  const width = state ? state.image.width : image.naturalWidth;
  const height = state ? state.image.height : image.naturalHeight;
  return {
    x: (event.clientX - rect.left) * width / rect.width,
    y: (event.clientY - rect.top) * height / rect.height,
  };
}

let press = null; // { id, start: {x, y}, clientX, clientY, dragging, shift }

image.addEventListener("pointerdown", (event) => {
  if (event.button !== 0 || !state) return;
  event.preventDefault();
  image.setPointerCapture(event.pointerId);
  press = { id: event.pointerId, start: devicePoint(event), clientX: event.clientX, clientY: event.clientY,
            dragging: false, shift: event.shiftKey };
});

image.addEventListener("pointermove", (event) => {
  if (!press || event.pointerId !== press.id) return;
  const point = devicePoint(event);
  if (!press.dragging) {
    if (Math.hypot(event.clientX - press.clientX, event.clientY - press.clientY) < DRAG_THRESHOLD) return;
    press.dragging = true;
    post("/api/event", { kind: "drag_begin", x: press.start.x, y: press.start.y, shift: press.shift });
  }
  post("/api/event", { kind: "drag_move", x: point.x, y: point.y, shift: press.shift });
});

image.addEventListener("pointerup", (event) => {
  if (!press || event.pointerId !== press.id) return;
  const point = devicePoint(event);
  post("/api/event", { kind: press.dragging ? "drag_end" : "tap", x: point.x, y: point.y, shift: press.shift });
  press = null;
});

image.addEventListener("pointercancel", (event) => {
  if (!press || event.pointerId !== press.id) return;
  if (press.dragging) {
    const point = devicePoint(event);
    post("/api/event", { kind: "cancel", x: point.x, y: point.y });
  }
  press = null;
});

// A double click: with Select on an annotation, AnnotEdit reports EDIT_REQUESTED and the
// comment box takes the focus; with Polygon, it closes the polygon.
image.addEventListener("dblclick", async (event) => {
  if (!state || !["pan", "polygon"].includes(state.tool)) return;
  const point = devicePoint(event);
  const answer = await post("/api/event", { kind: "double_tap", x: point.x, y: point.y });
  if (answer && answer.events.some((e) => e.startsWith("edit_requested")) && !$("comment").disabled) $("comment").focus();
});

// ---- the tool bar, the panels and the keys ---------------------------------------------------------

for (const button of document.querySelectorAll("[data-tool]")) {
  button.addEventListener("click", () => post("/api/tool", { tool: button.dataset.tool }));
}
$("undo").addEventListener("click", () => post("/api/undo"));
$("redo").addEventListener("click", () => post("/api/redo"));
$("delete").addEventListener("click", () => post("/api/delete"));
$("save").addEventListener("click", () => post("/api/save"));
$("set-comment").addEventListener("click", () => {
  const selected = state && state.annotations.find((a) => a.object === state.selection);
  if (selected && selected.field) post("/api/field", { value: $("comment").value });
  else post("/api/contents", { text: $("comment").value });
});
$("reply").addEventListener("click", async () => {
  const answer = await post("/api/reply", { text: $("reply-text").value });
  if (answer) $("reply-text").value = "";
});
$("set-state").addEventListener("click", () => post("/api/review-state", { state: $("review-state").value }));
$("user").addEventListener("change", () => {
  const name = $("user").value.trim();
  if (!name) { $("user").value = user; return; }
  user = name;
  localStorage.setItem("quire-review-user", user);
  request(stateURL(pageIndex), null);
});
$("color").addEventListener("change", () => post("/api/style", { color: $("color").value }));
$("highlight-color").addEventListener("change", () => post("/api/style", { highlight: $("highlight-color").value }));
$("width").addEventListener("change", () => {
  const width = Number($("width").value);
  if (Number.isFinite(width)) post("/api/style", { border_width: width });
});

function setZoom(value) {
  zoom = value;
  request(stateURL(pageIndex), null);
}
$("zoom").addEventListener("change", () => setZoom(Number($("zoom").value)));
function stepZoom(direction) {
  if (!state) return;
  const i = state.zooms.indexOf(state.zoom) + direction;
  if (i >= 0 && i < state.zooms.length) setZoom(state.zooms[i]);
}
$("zoom-in").addEventListener("click", () => stepZoom(1));
$("zoom-out").addEventListener("click", () => stepZoom(-1));
$("previous").addEventListener("click", () => { if (state && state.page > 0) request(stateURL(state.page - 1), null); });
$("next").addEventListener("click", () => { if (state && state.page + 1 < state.page_count) request(stateURL(state.page + 1), null); });

const KEYS = { p: "pan", s: "square", c: "circle", a: "arrow", g: "polygon", i: "ink", n: "note", t: "free_text", h: "highlight" };
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && key === "z") { event.preventDefault(); post(event.shiftKey ? "/api/redo" : "/api/undo"); }
  else if ((event.ctrlKey || event.metaKey) && key === "y") { event.preventDefault(); post("/api/redo"); }
  else if ((event.ctrlKey || event.metaKey) && key === "s") { event.preventDefault(); post("/api/save"); }
  else if (event.key === "Delete" || event.key === "Backspace") { if (state && state.selected.length) post("/api/delete"); }
  else if (event.key === "+" || event.key === "=") stepZoom(1);
  else if (event.key === "-") stepZoom(-1);
  else if (!event.ctrlKey && !event.metaKey && !event.altKey && KEYS[key]) post("/api/tool", { tool: KEYS[key] });
});

request(stateURL(0), null);
