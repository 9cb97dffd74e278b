// The review page: shows the page image the server rendered, sends pointer events in the
// image's device pixels (the server converts them with quire.device_to_page), and shows the
// state every answer carries. Plain JavaScript, no build step, nothing from elsewhere.
"use strict";

const DRAG_THRESHOLD = 4; // CSS pixels a press must travel to be a drag, not a tap

const $ = (id) => document.getElementById(id);
const image = $("page");
const overlay = $("overlay");

let state = null;       // the server's last answer
let pageIndex = 0;
let pending = 0;        // requests queued or in flight
let imageLoaded = false;
const queue = [];       // requests waiting, sent one at a time in order
let pumping = false;

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
          queue.unshift({ path: "/api/state?page=" + pageIndex, body: null, resolvers: [] });
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
  return request(path, Object.assign({ page: pageIndex }, body || {}));
}

// ---- showing the state -----------------------------------------------------------------------

function show(value) {
  const newImage = !state || state.image.url !== value.image.url;
  state = value;
  pageIndex = value.page;
  document.body.dataset.tool = value.tool;
  document.body.dataset.revision = String(value.revision);
  document.body.dataset.selection = value.selection === null ? "" : String(value.selection);
  $("title").textContent = value.document;
  $("page-number").textContent = (value.page + 1) + " / " + value.page_count;
  $("previous").disabled = value.page === 0;
  $("next").disabled = value.page + 1 >= value.page_count;
  for (const button of document.querySelectorAll("[data-tool]")) {
    button.setAttribute("aria-pressed", button.dataset.tool === value.tool ? "true" : "false");
  }
  if (newImage) {
    imageLoaded = false;
    image.width = value.image.width;
    image.height = value.image.height;
    image.src = value.image.url;
  }
  // The annotations, and the selection's outline over the image.
  const list = $("annotations");
  list.textContent = "";
  overlay.querySelectorAll(".selection").forEach((node) => node.remove());
  let selected = null;
  for (const a of value.annotations) {
    const item = document.createElement("li");
    item.textContent = a.subtype + " " + a.object + (a.contents ? ": " + a.contents : "");
    item.dataset.object = a.object;
    if (a.selected) {
      item.className = "selected";
      selected = a;
      const box = document.createElement("div");
      box.className = "selection";
      box.style.left = a.device[0] + "px";
      box.style.top = a.device[1] + "px";
      box.style.width = (a.device[2] - a.device[0]) + "px";
      box.style.height = (a.device[3] - a.device[1]) + "px";
      overlay.appendChild(box);
    }
    list.appendChild(item);
  }
  const comment = $("comment");
  // A form field's widget: the box edits the field's value (form filling's
  // set_field_value); any other annotation: its comment (/Contents).
  const field = selected ? selected.field : null;
  $("comment-label").textContent = field ? "Value of " + field.name + " (" + field.type.replace("_", " ") + ")" : "Comment";
  $("set-comment").textContent = field ? "Set value" : "Set comment";
  $("options").textContent = field && field.options.length ? "Choices: " + field.options.join(", ") : "";
  if (selected) {
    $("selected").textContent = selected.subtype + " " + selected.object +
      (selected.author && !field ? " by " + selected.author : "");
    if (document.activeElement !== comment || comment.dataset.object !== String(selected.object)) {
      comment.value = (field ? field.value : selected.contents) || "";
    }
    comment.dataset.object = String(selected.object);
  } else {
    $("selected").textContent = "Nothing is selected.";
    comment.value = "";
    comment.dataset.object = "";
  }
  comment.disabled = !selected;
  $("set-comment").disabled = !selected;
  $("delete").disabled = !selected;
  // The pending strokes became an annotation (or the ink tool is gone): the image shows them now.
  if (value.tool !== "ink" || value.events.some((e) => e.startsWith("annotation_added"))) inkStrokes = [];
  drawInk();
  const events = $("events");
  if (value.events.length > 0) {
    events.textContent = "";
    for (const text of value.events) {
      const item = document.createElement("li");
      item.textContent = text;
      events.appendChild(item);
    }
  }
}

image.addEventListener("load", () => { imageLoaded = true; updateIdle(); });
image.addEventListener("error", () => { imageLoaded = true; showError("The page image could not be loaded."); updateIdle(); });

// ---- pointer events ------------------------------------------------------------------------------

// A pointer position in the image's device pixels (the image may be shown scaled).
function devicePoint(event) {
  const box = image.getBoundingClientRect();
  const width = state ? state.image.width : image.naturalWidth;
  const height = state ? state.image.height : image.naturalHeight;
  return {
    x: (event.clientX - box.left) * width / box.width,
    y: (event.clientY - box.top) * height / box.height,
  };
}

let press = null; // { id, start: {x, y}, clientX, clientY, dragging, moving, points }
let preview = null;
// Ink strokes the server holds but has not committed yet (the ink tool commits them into
// one annotation when the tool changes or on Save): drawn here until then.
let inkStrokes = [];
const SVG = "http://www.w3.org/2000/svg";
const inkLayer = document.createElementNS(SVG, "svg");
inkLayer.setAttribute("class", "ink");
overlay.appendChild(inkLayer);

function drawInk() {
  inkLayer.textContent = "";
  if (!state) return;
  inkLayer.setAttribute("viewBox", "0 0 " + state.image.width + " " + state.image.height);
  for (const stroke of inkStrokes.concat(press && press.points ? [press.points] : [])) {
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", stroke.map((p) => p.x + "," + p.y).join(" "));
    inkLayer.appendChild(line);
  }
}

function inside(point, box) {
  return box && point.x >= box[0] && point.x <= box[2] && point.y >= box[1] && point.y <= box[3];
}

function showPreview(start, end) {
  if (!state || !["square", "circle", "free_text", "highlight", "arrow"].includes(state.tool)) return;
  if (!preview) {
    preview = document.createElement("div");
    preview.className = "preview";
    overlay.appendChild(preview);
  }
  const box = image.getBoundingClientRect();
  const sx = box.width / state.image.width, sy = box.height / state.image.height;
  preview.style.left = Math.min(start.x, end.x) * sx + "px";
  preview.style.top = Math.min(start.y, end.y) * sy + "px";
  preview.style.width = Math.abs(end.x - start.x) * sx + "px";
  preview.style.height = Math.abs(end.y - start.y) * sy + "px";
}

function hidePreview() {
  if (preview) preview.remove();
  preview = null;
}

image.addEventListener("pointerdown", (event) => {
  if (event.button !== 0 || !state) return;
  event.preventDefault();
  image.setPointerCapture(event.pointerId);
  const start = devicePoint(event);
  const selected = state.annotations.find((a) => a.selected);
  press = {
    id: event.pointerId, start, clientX: event.clientX, clientY: event.clientY, dragging: false,
    // A drag with Select that starts on the selection moves it: its outline follows.
    moving: Boolean(state.tool === "pan" && selected && inside(start, selected.device)),
    points: state.tool === "ink" ? [start] : null,
  };
});

image.addEventListener("pointermove", (event) => {
  if (!press || event.pointerId !== press.id) return;
  const point = devicePoint(event);
  if (!press.dragging) {
    if (Math.hypot(event.clientX - press.clientX, event.clientY - press.clientY) < DRAG_THRESHOLD) return;
    press.dragging = true;
    post("/api/event", { kind: "drag_begin", x: press.start.x, y: press.start.y });
  }
  post("/api/event", { kind: "drag_move", x: point.x, y: point.y });
  showPreview(press.start, point);
  if (press.points) { press.points.push(point); drawInk(); }
  const outline = press.moving ? overlay.querySelector(".selection") : null;
  if (outline) outline.style.transform = "translate(" + (point.x - press.start.x) + "px, " + (point.y - press.start.y) + "px)";
});

image.addEventListener("pointerup", (event) => {
  if (!press || event.pointerId !== press.id) return;
  const point = devicePoint(event);
  post("/api/event", { kind: press.dragging ? "drag_end" : "tap", x: point.x, y: point.y });
  if (press.points && press.dragging) inkStrokes.push(press.points.concat([point]));
  press = null;
  hidePreview();
  drawInk();
});

image.addEventListener("pointercancel", (event) => {
  if (!press || event.pointerId !== press.id) return;
  if (press.dragging) {
    const point = devicePoint(event);
    post("/api/event", { kind: "cancel", x: point.x, y: point.y });
  }
  press = null;
  hidePreview();
  drawInk();
});

// A double click with Select on an annotation: AnnotEdit reports EDIT_REQUESTED, and the
// comment box takes the focus.
image.addEventListener("dblclick", async (event) => {
  if (!state || state.tool !== "pan") return;
  const point = devicePoint(event);
  const answer = await post("/api/event", { kind: "double_tap", x: point.x, y: point.y });
  if (answer && answer.events.some((e) => e.startsWith("edit_requested")) && !$("comment").disabled) $("comment").focus();
});

// ---- the tool bar and the keys -----------------------------------------------------------------

for (const button of document.querySelectorAll("[data-tool]")) {
  button.addEventListener("click", () => post("/api/tool", { tool: button.dataset.tool }));
}
$("undo").addEventListener("click", () => post("/api/undo"));
$("redo").addEventListener("click", () => post("/api/redo"));
$("delete").addEventListener("click", () => post("/api/delete"));
$("save").addEventListener("click", () => post("/api/save"));
$("set-comment").addEventListener("click", () => {
  const selected = state && state.annotations.find((a) => a.selected);
  if (selected && selected.field) post("/api/field", { value: $("comment").value });
  else post("/api/contents", { text: $("comment").value });
});
$("previous").addEventListener("click", () => { if (state && state.page > 0) request("/api/state?page=" + (state.page - 1), null); });
$("next").addEventListener("click", () => { if (state && state.page + 1 < state.page_count) request("/api/state?page=" + (state.page + 1), null); });

const KEYS = { p: "pan", s: "square", c: "circle", a: "arrow", i: "ink", n: "note", t: "free_text", h: "highlight" };
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement) return;
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && key === "z") { event.preventDefault(); post(event.shiftKey ? "/api/redo" : "/api/undo"); }
  else if ((event.ctrlKey || event.metaKey) && key === "y") { event.preventDefault(); post("/api/redo"); }
  else if ((event.ctrlKey || event.metaKey) && key === "s") { event.preventDefault(); post("/api/save"); }
  else if (event.key === "Delete" || event.key === "Backspace") { if (state && state.selection !== null) post("/api/delete"); }
  else if (!event.ctrlKey && !event.metaKey && !event.altKey && KEYS[key]) post("/api/tool", { tool: KEYS[key] });
});

request("/api/state?page=0", null);
