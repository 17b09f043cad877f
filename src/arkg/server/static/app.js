// The arkg page: ask, watch the explored graph grow step by step, replay saved runs.
// Every piece of KG or model text reaches the page through textContent (or the canvas), never as
// HTML, so a name like "<img onerror=...>" shows as the text it is.
"use strict";

const $ = (id) => document.getElementById(id);

function node(background, border, strongBackground, strongBorder) {
  const strong = { background: strongBackground, border: strongBorder };
  return { background, border, highlight: strong, hover: strong };
}

const COLORS = {
  entity: node("#dbeafe", "#3b82f6", "#bfdbfe", "#1d4ed8"),
  anchor: node("#fed7aa", "#ea580c", "#fdba74", "#c2410c"),
  retrieved: "#94a3b8",
  followed: "#2563eb",
  cited: "#16a34a",
};

const nodes = new vis.DataSet();
const edges = new vis.DataSet();
const network = new vis.Network($("graph"), { nodes, edges }, {
  nodes: { shape: "dot", size: 14, borderWidth: 2, font: { size: 14, color: "#1f2937" } },
  edges: {
    arrows: { to: { enabled: true, scaleFactor: 0.6 } },
    font: { size: 11, color: "#4b5563", strokeWidth: 3, align: "horizontal" },
    color: { color: COLORS.retrieved, highlight: "#1d4ed8" },
  },
  physics: { solver: "forceAtlas2Based", forceAtlas2Based: { springLength: 140 }, stabilization: { iterations: 150 } },
  interaction: { hover: true, tooltipDelay: 150 },
  layout: { randomSeed: 7 },  // the same run is laid out the same way every time
});
// For the browser test and for anyone curious in the developer tools.
window.arkg = { nodes, edges, network };

let steps = [];            // steps shown, in order
let followed = new Set();  // "entity\u0000relation" pairs the agent followed
let running = null;        // {id, source} of the live run
let replayTimer = null;
let progress = null;       // {steps, calls, started, queued} of the live run, for its status line
let ticker = null;         // redraws that line every second, so the time runs on between steps

function text(tag, content, className) {
  const element = document.createElement(tag);
  element.textContent = content;
  if (className) element.className = className;
  return element;
}

function propsText(props) {
  return Object.entries(props || {}).map(([name, value]) => `${name}: ${value}`).join("; ");
}

function tripleText(triple) {
  const props = propsText(triple.props);
  return `(${triple.head}, ${triple.relation}, ${triple.tail})` + (props ? ` [${props}]` : "");
}

function status(message, isError = false) {
  $("status").textContent = message;
  $("status").className = isError ? "error" : "";
}

// -- the graph ------------------------------------------------------------------------------------

function tooltip(lines) {
  const element = document.createElement("div");
  element.textContent = lines.filter(Boolean).join("\n");
  return element;
}

function ensureNode(name) {
  if (!nodes.get(name)) {
    nodes.add({ id: name, label: name, color: COLORS.entity, anchor: false, title: tooltip([name]) });
  }
}

function markAnchor(name) {
  ensureNode(name);
  nodes.update({ id: name, anchor: true, color: COLORS.anchor, size: 20, font: { size: 16, bold: true } });
}

function edgeStyle(edge) {
  // Selected or hovered, an edge keeps its colour and only grows thicker: what it is stays visible.
  const paint = (color) => ({ color, highlight: color, hover: color });
  if (edge.cited) return { color: paint(COLORS.cited), width: 4, font: { color: COLORS.cited, bold: true } };
  if (edge.followed) return { color: paint(COLORS.followed), width: 2 };
  return { color: paint(COLORS.retrieved), width: 1 };
}

function ensureEdge(triple) {
  if (edges.get(triple.id)) return;
  ensureNode(triple.head);
  ensureNode(triple.tail);
  const parallel = edges.get({
    filter: (other) => (other.from === triple.head && other.to === triple.tail) || (other.from === triple.tail && other.to === triple.head),
  }).length;
  const edge = {
    id: triple.id,
    from: triple.head,
    to: triple.tail,
    label: triple.relation,
    triple,
    cited: false,
    followed: followed.has(triple.head + "\u0000" + triple.relation) || followed.has(triple.tail + "\u0000" + triple.relation),
    smooth: { enabled: true, type: "curvedCW", roundness: 0.08 + 0.22 * parallel },
    title: tooltip([(triple.key ? triple.key + ": " : "") + tripleText(triple)]),
  };
  edges.add({ ...edge, ...edgeStyle(edge) });
}

function cite(edgeId) {
  const edge = edges.get(edgeId);
  if (edge && !edge.cited) edges.update({ id: edgeId, cited: true, ...edgeStyle({ ...edge, cited: true }) });
}

function follow(entity, relation) {
  followed.add(entity + "\u0000" + relation);
  ensureNode(entity);
  for (const edge of edges.get({ filter: (e) => e.triple.relation === relation && (e.from === entity || e.to === entity) })) {
    if (!edge.followed) edges.update({ id: edge.id, followed: true, ...edgeStyle({ ...edge, followed: true }) });
  }
}

// -- steps ----------------------------------------------------------------------------------------

function addStep(step) {
  const graph = step.graph;
  for (const name of graph.entities) ensureNode(name);
  if (graph.relation) follow(graph.relation.entity, graph.relation.relation);
  for (const triple of graph.triples) ensureEdge(triple);
  if (graph.anchor) markAnchor(graph.anchor);
  for (const id of graph.cited) cite(id);

  const item = document.createElement("li");
  item.appendChild(text("span", step.kind, "kind"));
  item.appendChild(document.createTextNode(step.text.trim()));
  item.dataset.index = String(steps.length);
  item.addEventListener("click", () => selectStep(steps.indexOf(step), item));
  $("steps").appendChild(item);
  item.scrollIntoView({ block: "nearest" });
  steps.push(step);
}

function stepParts(step) {
  const graph = step.graph;
  const nodeIds = new Set(graph.entities);
  if (graph.anchor) nodeIds.add(graph.anchor);
  if (graph.relation) nodeIds.add(graph.relation.entity);
  const edgeIds = new Set(graph.cited);
  for (const triple of graph.triples) {
    edgeIds.add(triple.id);
    nodeIds.add(triple.head);
    nodeIds.add(triple.tail);
  }
  if (graph.relation) {
    const { entity, relation } = graph.relation;
    for (const edge of edges.get({ filter: (e) => e.triple.relation === relation && (e.from === entity || e.to === entity) })) {
      edgeIds.add(edge.id);
    }
  }
  for (const id of graph.cited) {
    const edge = edges.get(id);
    if (edge) { nodeIds.add(edge.from); nodeIds.add(edge.to); }
  }
  return { nodes: [...nodeIds].filter((id) => nodes.get(id)), edges: [...edgeIds].filter((id) => edges.get(id)) };
}

function selectStep(index, item) {
  for (const other of document.querySelectorAll("#steps li.selected")) other.classList.remove("selected");
  item.classList.add("selected");
  const parts = stepParts(steps[index]);
  network.setSelection(parts, { unselectAll: true, highlightEdges: false });
  if (parts.nodes.length) network.fit({ nodes: parts.nodes, animation: { duration: 300 }, maxZoomLevel: 1.3 });
  showEvent(steps[index]);
}

function showEvent(step) {
  showDetails(`step ${step.index}: ${step.kind}`, [text("pre", JSON.stringify(step.event, null, 2), "event")]);
}

function showDetails(title, children) {
  $("details").hidden = false;
  $("details-title").textContent = title;
  $("details-body").replaceChildren(...children);
}

// -- the answer -----------------------------------------------------------------------------------

function answerText(result) {
  if (result.answer === null || result.answer === undefined) return "None (not settled by the knowledge graph)";
  if (result.answer === true) return result.claim ? "True (the claim holds)" : "True";
  if (result.answer === false) return result.claim ? "False (the claim does not hold)" : "False";
  return String(result.answer);
}

// Whether the cited facts support the answer: "supported", "unsupported" or "none" (no answer).
function supportState(result) {
  if (result.answer === null || result.answer === undefined || !result.support) return "none";
  return result.support.supported ? "supported" : "unsupported";
}

// What the answer rests on and whether that supports it, with the one-line reason when not (as `arkg ask` says).
function basisText(result) {
  if (!result.basis) return "";
  const support = result.support;
  const state = supportState(result);
  if (state === "unsupported") return `basis: ${result.basis} · unsupported: ${support.reasons.join("; ")}`;
  if (state === "supported") return `basis: ${result.basis} · supported` + (support.note ? ` (${support.note})` : "");
  const missing = support && support.missing && support.missing.length;
  return `basis: ${result.basis}` + (missing ? ` · ${support.reasons.join("; ")}` : "");
}

function showResult(result, note) {
  $("answer").hidden = false;
  $("answer-value").textContent = answerText(result);
  $("basis").textContent = basisText(result);
  $("answer").dataset.support = supportState(result);
  $("explanation").textContent = result.explanation || "";
  $("stop-reason").textContent = [result.stop_reason ? `stopped because ${result.stop_reason}` : "", note || ""].filter(Boolean).join(" · ");
  $("cited").replaceChildren(...result.cited.map((triple) => text("li", tripleText(triple))));
  const computed = result.computed || [];
  $("computed").replaceChildren(...computed.map((line) => text("li", line)));
  $("computed-panel").hidden = computed.length === 0;
  for (const triple of result.cited) {
    ensureEdge(triple);
    cite(triple.id);
  }
}

function reset() {
  clearTimeout(replayTimer);
  nodes.clear();
  edges.clear();
  steps = [];
  followed = new Set();
  $("steps").replaceChildren();
  $("answer").hidden = true;
  $("answered-by").textContent = "";
  $("details").hidden = true;
}

// -- asking ---------------------------------------------------------------------------------------

async function api(path, options = {}) {
  const response = await fetch(path, { headers: { "Content-Type": "application/json" }, ...options });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const retry = response.headers.get("Retry-After");
    const error = new Error((body.error || `HTTP ${response.status}`) + (retry ? ` (try again in ${retry} s)` : ""));
    error.status = response.status;
    throw error;
  }
  return body;
}

function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function seconds() {
  return Math.round((Date.now() - progress.started) / 1000);
}

function showProgress() {
  const where = progress.queued || `running… step ${Math.max(progress.steps, 1)}, ${plural(progress.calls, "model call")}`;
  status(`${where} · ${seconds()} s`);
}

// What a finished run took, from its last step: reasoning steps (not events) and model calls.
function countsText(last) {
  return last ? `${plural(last.reasoning_steps, "reasoning step")}, ${plural(last.model_calls, "model call")}` : "no steps";
}

function finishRun(message, isError) {
  clearInterval(ticker);
  if (running) running.source.close();
  running = null;
  $("ask").disabled = false;
  $("stop").disabled = true;
  status(message, isError);
}

async function ask(event) {
  event.preventDefault();
  if (running) return;
  let settings = {};
  const settingsText = $("settings").value.trim();
  if (settingsText) {
    try {
      settings = JSON.parse(settingsText);
    } catch {
      status('settings: not JSON; write them like {"k_max": 4}', true);
      return;
    }
  }
  reset();
  $("ask").disabled = true;
  status("asking…");
  let run;
  try {
    run = await api("/api/runs", {
      method: "POST",
      body: JSON.stringify({ question: $("question").value, strategy: $("strategy").value, settings }),
    });
  } catch (error) {
    $("ask").disabled = false;
    status(error.message, true);
    return;
  }
  const source = new EventSource(run.events);
  running = { id: run.id, source };
  $("stop").disabled = false;
  progress = { steps: 0, calls: 0, started: Date.now(), queued: run.position ? `queued: ${run.position} run(s) ahead` : "" };
  clearInterval(ticker);
  ticker = setInterval(showProgress, 1000);
  showProgress();
  source.addEventListener("step", (message) => {
    const step = JSON.parse(message.data);
    Object.assign(progress, { steps: step.reasoning_steps, calls: step.model_calls, queued: "" });
    addStep(step);
    showProgress();
  });
  source.addEventListener("end", (message) => {
    const outcome = JSON.parse(message.data);
    if (outcome.result) showResult(outcome.result);
    $("answered-by").textContent = outcome.model ? `model: ${outcome.model}` : "";
    const failed = outcome.state !== "done";
    finishRun(failed ? `${outcome.state}: ${outcome.error || ""}` : `done in ${seconds()} s: ${countsText(steps[steps.length - 1])}`, failed);
  });
  source.addEventListener("error", () => {
    if (running && running.source === source && source.readyState === EventSource.CLOSED) {
      finishRun("the connection to the server was lost", true);
    }
  });
}

async function stop() {
  if (!running) return;
  const id = running.id;
  finishRun("stopped");
  await api(`/api/runs/${encodeURIComponent(id)}`, { method: "DELETE" }).catch(() => {});
}

// -- entity and edge details ----------------------------------------------------------------------

function edgeList(triples) {
  const list = document.createElement("ul");
  list.className = "edge-list";
  for (const triple of triples) list.appendChild(text("li", tripleText(triple)));
  return list;
}

async function showEntity(name) {
  showDetails(name, [text("p", "loading its edges…")]);
  try {
    const view = await api(`/api/edges?entity=${encodeURIComponent(name)}`);
    const parts = [text("h3", `outgoing (${view.outgoing.length})`), edgeList(view.outgoing), text("h3", `incoming (${view.incoming.length})`), edgeList(view.incoming)];
    if (view.not_shown) parts.push(text("p", `${view.not_shown} more not shown`, "props"));
    showDetails(name, parts);
  } catch (error) {
    showDetails(name, [text("p", error.message)]);
  }
}

function showEdge(id) {
  const edge = edges.get(id);
  if (!edge) return;
  const triple = edge.triple;
  const parts = [text("p", tripleText(triple))];
  if (triple.key) parts.push(text("p", `shown to the model as ${triple.key}${triple.incoming ? " (reached from its tail)" : ""}`, "props"));
  parts.push(text("p", edge.cited ? "cited" : edge.followed ? "retrieved along a followed relation" : "retrieved", "props"));
  for (const [name, value] of Object.entries(triple.props || {})) parts.push(text("p", `${name}: ${value}`));
  showDetails(triple.relation, parts);
}

network.on("click", (params) => {
  if (params.nodes.length) showEntity(params.nodes[0]);
  else if (params.edges.length) showEdge(params.edges[0]);
});

// -- replay ---------------------------------------------------------------------------------------

function option(value, label) {
  const element = text("option", label);
  element.value = value;
  return element;
}

async function loadTraceFiles() {
  try {
    const files = await api("/api/traces");
    $("trace-file").replaceChildren(option("", files.length ? "choose a file" : "no trace files in the server's folder"), ...files.map((file) => option(file.name, file.name)));
  } catch (error) {
    status(error.message, true);
  }
}

async function loadTraceRuns() {
  const name = $("trace-file").value;
  $("trace-run").replaceChildren();
  if (!name) return;
  try {
    const runs = await api(`/api/traces/runs?name=${encodeURIComponent(name)}`);
    $("trace-run").replaceChildren(...runs.map((run) => {
      const mark = run.correct === undefined ? "" : run.correct ? " ✓" : " ✗";
      return option(String(run.index), `${run.label}${mark}`);
    }));
  } catch (error) {
    status(error.message, true);
  }
}

async function replay() {
  const name = $("trace-file").value;
  if (!name || running) return;
  let saved;
  try {
    saved = await api(`/api/traces/replay?name=${encodeURIComponent(name)}&index=${encodeURIComponent($("trace-run").value || "0")}`);
  } catch (error) {
    status(error.message, true);
    return;
  }
  reset();
  $("question").value = saved.result.question || "";
  status(`replaying ${name}`);
  let next = 0;
  const tick = () => {
    if (next < saved.steps.length) {
      addStep(saved.steps[next++]);
      replayTimer = setTimeout(tick, 250);
      return;
    }
    const gold = saved.gold === undefined ? "" : `gold: ${saved.gold}${saved.correct ? " (correct)" : " (wrong)"}`;
    showResult(saved.result, gold);
    status(`replayed ${name} (${countsText(saved.steps[saved.steps.length - 1])}${saved.model ? `, model ${saved.model}` : ""})`);
  };
  tick();
}

// -- start ----------------------------------------------------------------------------------------

async function start() {
  try {
    const info = await api("/api/info");
    $("model").textContent = info.model;
    $("kg").textContent = info.kg;
    $("strategy").replaceChildren(...info.strategies.map((strategy) => {
      const element = option(strategy.name, strategy.name);
      element.title = strategy.summary;
      return element;
    }));
    $("strategy").value = info.strategy;
    $("question").maxLength = info.limits.max_question_chars;
  } catch (error) {
    status(error.message, true);
  }
  $("ask-form").addEventListener("submit", ask);
  $("stop").addEventListener("click", stop);
  $("replay-panel").addEventListener("toggle", () => { if ($("replay-panel").open) loadTraceFiles(); });
  $("trace-file").addEventListener("change", loadTraceRuns);
  $("replay").addEventListener("click", replay);
  document.body.dataset.ready = "true";
}

start();
