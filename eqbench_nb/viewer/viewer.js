// eqbench_nb run viewer: one script for the self-contained page (eqbench-nb view) and the JupyterLab widget
// (eqbench_nb.view). It draws the object eqbench_nb.viewer.payload builds: one run, or two side by side.
//
// Everything in that object came from a run file, and so from a model or a server: it is only ever set as a
// text node (textContent, append of a string) or as the value of an attribute from a fixed list that no
// browser runs (class, data-*, ...). Nothing from data is ever parsed as markup, nor set as a link, a source
// or a style: an answer holding a script element or an image with an error handler is shown as the
// characters it is, and nothing in it runs.

const TEXT_CUT = 140; // characters of an answer shown in the table; the detail shows it whole
const SAFE_ATTRIBUTES = new Set(["class", "type", "value", "placeholder", "title", "tabindex", "role", "colspan", "min", "step", "id"]);

function h(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (SAFE_ATTRIBUTES.has(name) || name.startsWith("data-") || name.startsWith("aria-")) node.setAttribute(name, String(value));
    else throw new Error("eqbench_nb viewer: attribute " + name + " is not set from data");
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function fmt(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "—";
    if (Number.isInteger(value)) return String(value);
    return Math.abs(value) < 1 ? String(Number(value.toFixed(4))) : value.toFixed(2);
  }
  return String(value);
}

function cut(text) {
  if (text === null || text === undefined) return "—";
  const flat = String(text).replace(/\s+/g, " ").trim();
  return flat.length > TEXT_CUT ? flat.slice(0, TEXT_CUT - 1) + "…" : flat;
}

// Search ignores case and how text is broken into lines: "Angry: 7 Sad" finds "Angry: 7\nSad".
function flat(text) {
  return String(text).replace(/\s+/g, " ").trim().toLowerCase();
}

function numberOrNull(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

// The text of an item's k-th attempt. An answer is written into the page once: an attempt whose text is the item's
// own holds null there, and the item lists it in text_at (eqbench_nb.viewer.payload).
function attemptText(item, k, fields) {
  if (item.text_at.includes(k)) return item.text;
  const at = fields.indexOf("text");
  return at >= 0 ? item.attempts[k][at] : null;
}

// ---------------------------------------------------------------- the header

function renderSummary(run, side, compact) {
  const s = run.summary;
  const facts = h("dl", { class: "eqv-facts" });
  for (const [label, value] of s.facts) facts.append(h("dt", { text: label }), h("dd", { text: fmt(value) }));
  const scores = h("table", { class: "eqv-scores" });
  scores.append(h("caption", { text: s.scores.caption }));
  scores.append(h("thead", {}, h("tr", {}, ...s.scores.columns.map((c) => h("th", { text: c })))));
  scores.append(h("tbody", {}, ...s.scores.rows.map((row) => h("tr", {}, ...row.map((c) => h("td", { text: fmt(c) }))))));
  const settings = h("details", { class: "eqv-settings" }, h("summary", { text: "settings, pipeline, tokens and cost" }), facts);
  settings.open = !compact;
  const box = h("section", { class: "eqv-run", "data-run": side }, h("h2", { text: (side ? side + ": " : "") + s.title }), scores, settings);
  if (s.warnings.length) box.append(h("ul", { class: "eqv-warnings" }, ...s.warnings.map((w) => h("li", { text: "warning: " + w }))));
  return box;
}

// ---------------------------------------------------------------- entries: one run's items, or two runs' pairs

function entriesOf(runs) {
  if (runs.length === 1) return runs[0].items.map((item) => ({ id: item.id, label: item.label, sides: [item] }));
  const byKey = new Map();
  runs.forEach((run, side) => {
    for (const item of run.items) {
      if (!byKey.has(item.key)) byKey.set(item.key, { id: item.key, label: item.label, sides: [null, null] });
      byKey.get(item.key).sides[side] = item;
    }
  });
  return [...byKey.values()];
}

function difference(entry) {
  const [a, b] = entry.sides;
  const x = a && numberOrNull(a.compare);
  const y = b && numberOrNull(b.compare);
  return x === null || y === null || x === undefined || y === undefined ? null : y - x;
}

function columnsFor(runs) {
  if (runs.length === 1) {
    return runs[0].table.map((column, k) => {
      const value = column.field ? (e) => e.sides[0][column.field] : (e) => e.sides[0].cells[k];
      return { label: column.label, kind: column.kind, value: value, show: column.field === "text" ? (e) => cut(value(e)) : (e) => fmt(value(e)) };
    });
  }
  const label = runs[0].compare_label;
  const side = (k, f) => (e) => (e.sides[k] ? f(e.sides[k]) : null);
  return [
    { label: "item", kind: "text", value: (e) => e.label, show: (e) => e.label },
    { label: "A " + label, kind: "num", value: side(0, (i) => i.compare), show: (e) => fmt(side(0, (i) => i.compare)(e)) },
    { label: "B " + label, kind: "num", value: side(1, (i) => i.compare), show: (e) => fmt(side(1, (i) => i.compare)(e)) },
    { label: "B − A", kind: "num", value: difference, show: (e) => fmt(difference(e)) },
    { label: "A attempts", kind: "num", value: side(0, (i) => i.n), show: (e) => fmt(side(0, (i) => i.n)(e)) },
    { label: "B attempts", kind: "num", value: side(1, (i) => i.n), show: (e) => fmt(side(1, (i) => i.n)(e)) },
    { label: "A answer", kind: "text", value: side(0, (i) => i.text), show: (e) => (e.sides[0] ? cut(e.sides[0].text) : "(no item)") },
    { label: "B answer", kind: "text", value: side(1, (i) => i.text), show: (e) => (e.sides[1] ? cut(e.sides[1].text) : "(no item)") },
  ];
}

function haystack(entry) {
  if (entry.hay === undefined) {
    const parts = [entry.label];
    for (const item of entry.sides) {
      if (!item) continue;
      parts.push(item.text || "");
      for (const attempt of item.attempts) for (const v of attempt) if (typeof v === "string") parts.push(v);
    }
    entry.hay = flat(parts.join("\n"));
  }
  return entry.hay;
}

// ---------------------------------------------------------------- the detail

function renderItem(run, item) {
  if (!item) return h("p", { class: "eqv-missing", text: "This run has no record of this item." });
  const box = h("div", { class: "eqv-item" });
  box.append(h("p", { class: "eqv-decision" }, h("strong", { text: item.parsed ? "counted" : "not counted" }), " — " + fmt(item.facts[run.facts.indexOf("reason")])));
  const facts = h("dl", { class: "eqv-facts" });
  run.facts.forEach((label, k) => {
    const value = item.facts[k];
    if (value !== null && value !== "") facts.append(h("dt", { text: label }), h("dd", { text: fmt(value) }));
  });
  run.tables.forEach((table, k) => {
    const rows = item.tables[k];
    if (!rows.length) return;
    box.append(
      h("table", { class: "eqv-small" },
        h("caption", { text: table.title }),
        h("thead", {}, h("tr", {}, ...table.columns.map((c) => h("th", { text: c })))),
        h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((c) => h("td", { text: fmt(c) })))))));
  });
  const prompt = item.prompt >= 0 ? run.prompts[item.prompt] : null;
  const source = item.source >= 0 ? run.sources[item.source] : "";
  const asked = h("details", { class: "eqv-prompt" }, h("summary", { text: "prompt" + (prompt ? " (" + prompt.length + " message" + (prompt.length === 1 ? "" : "s") + ")" : ": not available") + " — " + source }));
  if (prompt) for (const message of prompt) asked.append(h("div", { class: "eqv-role", text: String(message.role) }), h("pre", { text: String(message.content) }));
  box.append(asked);
  const fields = run.attempt_fields;
  const at = (attempt, name) => (fields.includes(name) ? attempt[fields.indexOf(name)] : null);
  let step = null;
  for (const [k, attempt] of item.attempts.entries()) {
    // A conversation's attempts name their step (a turn, the debrief, a judgement): each step is headed by its
    // name and by the message of the prompt it answered.
    if (at(attempt, "step") !== null && at(attempt, "step") !== step) {
      step = at(attempt, "step");
      box.append(h("h4", { class: "eqv-step", text: String(step) }));
      const asked = at(attempt, "asked");
      const message = prompt && typeof asked === "number" ? prompt[asked] : null;
      if (message) box.append(h("details", { class: "eqv-asked" }, h("summary", { text: "asked (" + String(message.role) + ", message " + (asked + 1) + " of the prompt)" }), h("pre", { text: String(message.content) })));
    }
    const kept = at(attempt, "kept");
    const block = h("div", { class: "eqv-attempt" + (kept ? " eqv-kept" : ""), "data-attempt": fmt(at(attempt, "attempt")) });
    block.append(h("h4", { text: "attempt " + fmt(at(attempt, "attempt")) + (kept ? " · kept" : "") + " · " + fmt(at(attempt, "decision")) + ": " + fmt(at(attempt, "reason")) }));
    const meta = [];
    for (const name of fields) {
      if (["attempt", "decision", "reason", "kept", "text", "raw_text", "reasoning", "step", "asked"].includes(name)) continue;
      const value = at(attempt, name);
      if (value !== null && value !== "") meta.push(name.replace(/_/g, " ") + " " + fmt(value));
    }
    block.append(h("p", { class: "eqv-meta", text: meta.join(" · ") }));
    const text = attemptText(item, k, fields);
    block.append(h("pre", { class: "eqv-text", text: text === null ? "(no text)" : text }));
    for (const [name, title] of [["reasoning", "reasoning (taken off before parsing)"], ["raw_text", "raw text as received"]]) {
      const value = at(attempt, name);
      if (value !== null && value !== undefined) block.append(h("details", {}, h("summary", { text: title }), h("pre", { text: value })));
    }
    box.append(block);
  }
  box.append(facts);
  return box;
}

function renderDetail(runs, entry, panel) {
  panel.textContent = "";
  panel.setAttribute("data-detail-id", entry.id);
  panel.append(h("h3", { text: entry.label }));
  const grid = h("div", { class: runs.length === 2 ? "eqv-pair" : "eqv-single" });
  runs.forEach((run, k) => {
    const column = h("div", { class: "eqv-side" });
    if (runs.length === 2) column.append(h("h4", { class: "eqv-side-title", text: (k ? "B: " : "A: ") + run.summary.title }));
    column.append(renderItem(run, entry.sides[k]));
    grid.append(column);
  });
  panel.append(grid);
  panel.hidden = false;
}

// ---------------------------------------------------------------- the table, its filters and sort

function option(value, text) {
  return h("option", { value: value, text: text });
}

// options.compact (the notebook widget): the run's settings start folded, the table is shorter.
export function renderViewer(root, payload, options = {}) {
  const runs = payload.runs;
  const entries = entriesOf(runs);
  const columns = columnsFor(runs);
  root.textContent = "";
  const app = h("div", { class: options.compact ? "eqv eqv-compact" : "eqv" });
  root.append(app);

  const header = h("header", { class: runs.length === 2 ? "eqv-pair" : "eqv-single" });
  runs.forEach((run, k) => header.append(renderSummary(run, runs.length === 2 ? (k ? "B" : "A") : "", options.compact)));
  app.append(header);
  if (payload.comparison) app.append(h("p", { class: "eqv-comparison", text: payload.comparison }));

  const emotions = [...new Set(entries.flatMap((e) => e.sides.filter(Boolean).flatMap((i) => i.emotions)))].sort();
  const counts = [...new Set(entries.flatMap((e) => e.sides.filter(Boolean).map((i) => i.n)))].sort((a, b) => a - b);
  const search = h("input", { type: "search", placeholder: "search answers and prompts", class: "eqv-search", "aria-label": "search" });
  const check = (name, text) => {
    const box = h("input", { type: "checkbox", "data-filter": name });
    return [box, h("label", { class: "eqv-check" }, box, " " + text)];
  };
  const [unparsed, unparsedLabel] = check("unparsed", "unparsed");
  const [retried, retriedLabel] = check("retried", "retried");
  const [faults, faultsLabel] = check("faults", "transport faults or errors");
  const group = runs[0].group_label || "emotion"; // what the emotion filter picks among: an emotion, a kind of task
  const emotion = h("select", { "data-filter": "emotion", "aria-label": group }, option("", "every " + group), ...emotions.map((e) => option(e, e)));
  const attempts = h("select", { "data-filter": "attempts", "aria-label": "attempts" }, option("", "any attempts"), ...counts.map((n) => option(String(n), n + " attempt" + (n === 1 ? "" : "s"))));
  const minError = h("input", { type: "number", min: "0", step: "0.5", placeholder: runs[0].error_label + " ≥", "data-filter": "error", "aria-label": runs[0].error_label + " at least", class: "eqv-number" });
  const shown = h("span", { class: "eqv-count", role: "status" });
  app.append(h("div", { class: "eqv-controls" }, search, unparsedLabel, retriedLabel, faultsLabel, emotion, attempts, minError, shown));

  const headRow = h("tr");
  const body = h("tbody");
  const table = h("table", { class: "eqv-items" }, h("thead", {}, headRow), body);
  app.append(h("div", { class: "eqv-scroll" }, table));
  const panel = h("section", { class: "eqv-detail", "aria-live": "polite" });
  panel.hidden = true;
  app.append(panel);

  const rows = new Map();
  for (const entry of entries) {
    const open = () => {
      for (const r of body.querySelectorAll(".eqv-open")) r.classList.remove("eqv-open");
      rows.get(entry).classList.add("eqv-open");
      renderDetail(runs, entry, panel);
    };
    const classes = ["eqv-row"];
    if (entry.sides.some((i) => i && !i.parsed)) classes.push("eqv-unparsed");
    const row = h("tr", { class: classes.join(" "), "data-item-id": entry.id, tabindex: "0", on: { click: open, keydown: (ev) => { if (ev.key === "Enter") open(); } } },
      ...columns.map((c) => h("td", { class: "eqv-" + c.kind, text: c.show(entry) })));
    rows.set(entry, row);
  }

  let order = entries.slice();
  let sortBy = null;
  let descending = false;
  columns.forEach((column, k) => {
    const cell = h("th", { class: "eqv-sortable", tabindex: "0", "data-column": String(k), title: "sort", text: column.label });
    const sort = () => {
      descending = sortBy === k ? !descending : column.kind === "num";
      sortBy = k;
      const key = (e) => column.value(e);
      order = entries.slice().sort((x, y) => {
        const a = key(x), b = key(y);
        if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
        if (b === null || b === undefined) return -1;
        const c = typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b), undefined, { numeric: true });
        return descending ? -c : c;
      });
      for (const th of headRow.children) th.removeAttribute("aria-sort");
      cell.setAttribute("aria-sort", descending ? "descending" : "ascending");
      draw();
    };
    cell.addEventListener("click", sort);
    cell.addEventListener("keydown", (ev) => { if (ev.key === "Enter") sort(); });
    headRow.append(cell);
  });

  const keep = (entry) => {
    const items = entry.sides.filter(Boolean);
    const query = flat(search.value);
    if (query && !haystack(entry).includes(query)) return false;
    if (unparsed.checked && !items.some((i) => !i.parsed)) return false;
    if (retried.checked && !items.some((i) => i.retried)) return false;
    if (faults.checked && !items.some((i) => i.fault)) return false;
    if (emotion.value && !items.some((i) => i.emotions.includes(emotion.value))) return false;
    if (attempts.value && !items.some((i) => String(i.n) === attempts.value)) return false;
    const least = parseFloat(minError.value);
    if (Number.isFinite(least) && !items.some((i) => numberOrNull(i.error) !== null && i.error >= least)) return false;
    return true;
  };
  let placed = null; // the order the rows stand in now: a filter only hides rows, a sort moves them
  const draw = () => {
    let n = 0;
    for (const entry of order) {
      const row = rows.get(entry);
      const hidden = !keep(entry);
      if (row.hidden !== hidden) row.hidden = hidden;
      if (!hidden) n += 1;
    }
    if (placed !== order) {
      const fragment = document.createDocumentFragment();
      for (const entry of order) fragment.append(rows.get(entry));
      body.append(fragment);
      placed = order;
    }
    shown.textContent = "showing " + n + " of " + entries.length + " items";
  };
  for (const control of [search, unparsed, retried, faults, emotion, attempts, minError]) control.addEventListener("input", draw);
  for (const control of [unparsed, retried, faults, emotion, attempts]) control.addEventListener("change", draw);
  draw();
  return {
    open: (id) => {
      const entry = entries.find((e) => e.id === id);
      if (entry) rows.get(entry).click();
      return Boolean(entry);
    },
  };
}

// ---------------------------------------------------------------- the page, and the widget

// The item a URL's fragment names: percent-decoded, or as written when it is no valid percent-encoding
// (page.html#%E0%A4%A would make decodeURIComponent throw URIError on load and on every hash change).
export function hashItem(hash) {
  const raw = String(hash || "").replace(/^#/, "");
  try {
    return decodeURIComponent(raw);
  } catch (err) {
    return raw;
  }
}

export function renderPage() {
  const payload = JSON.parse(document.getElementById("eqv-data").textContent);
  document.title = payload.runs.map((run) => run.summary.title).join(" vs ") + " — eqbench_nb viewer";
  const viewer = renderViewer(document.getElementById("eqv-root"), payload);
  const wanted = hashItem(window.location.hash);
  if (wanted) viewer.open(wanted);
  window.addEventListener("hashchange", () => viewer.open(hashItem(window.location.hash)));
}

const widget = {
  render({ model, el }) {
    const draw = () => renderViewer(el, JSON.parse(model.get("payload")), { compact: true });
    draw();
    model.on("change:payload", draw);
    return () => model.off("change:payload", draw);
  },
};
export default widget;
