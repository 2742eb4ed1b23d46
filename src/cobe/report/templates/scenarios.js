// Every model on one scenario: the scenario view (opened from a card, a #scenario=ID link or the id box) and
// the list of scenarios, which can be narrowed to those where models disagree. Built from the response
// browser's payload (window.cobeReport.data: its rows are referenced, never copied) and only when needed: the
// index when the section comes into sight or a scenario is asked for, one page of the list, one scenario.
// Untrusted text (model output, dataset text, ids) is only ever set through textContent.
(function () {
  "use strict";
  var data = window.cobeReport.data;
  var PAGE = 25;
  var HASH = "#scenario=";
  var overall = {};  // label index → true: that model's verdicts are a source's one overall verdict (an import)
  Object.keys(data.overall || {}).forEach(function (m) { overall[m] = true; });
  var chosen = data.labels.map(function () { return true; });  // the models compared
  var index = null;  // {ids: scenario ids in first-seen order, rows: id → the payload's rows of that scenario}
  var summaries = null;  // id → {counts, models, disagree} over the chosen models; dropped when they change
  var onlyDisagree = false;
  var listPage = 0;
  var current = null;
  var started = false;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function build() {
    if (index) return index;
    var rows = Object.create(null);  // no prototype: an id such as "constructor" finds nothing
    var ids = [];
    data.rows.forEach(function (row) {
      if (!rows[row.s]) { rows[row.s] = []; ids.push(row.s); }
      rows[row.s].push(row);
    });
    index = { ids: ids, rows: rows };
    return index;
  }

  // Models disagree on a scenario when, on one phrasing, one model passes and another model fails;
  // unscored and errored answers take no side.
  function summarise(rows) {
    var counts = { passed: 0, failed: 0, unscored: 0, error: 0 };
    var models = {};
    var sides = {};
    rows.forEach(function (row) {
      if (!chosen[row.m]) return;
      models[row.m] = true;
      counts[row.st] = (counts[row.st] || 0) + 1;
      if (row.st !== "passed" && row.st !== "failed") return;
      var side = sides[row.t] || (sides[row.t] = { passed: {}, failed: {} });
      side[row.st][row.m] = true;
    });
    var disagree = Object.keys(sides).some(function (t) {
      var pass = Object.keys(sides[t].passed);
      var fail = Object.keys(sides[t].failed);
      return pass.length > 0 && fail.length > 0 && !(pass.length === 1 && fail.length === 1 && pass[0] === fail[0]);
    });
    return { counts: counts, models: Object.keys(models).length, disagree: disagree };
  }

  function summary(id) {
    if (!summaries) summaries = Object.create(null);
    if (!summaries[id]) summaries[id] = summarise(build().rows[id]);
    return summaries[id];
  }

  function listed() {
    return build().ids.filter(function (id) { return summary(id).models > 0 && (!onlyDisagree || summary(id).disagree); });
  }

  function tally(s) {
    var parts = [s.counts.passed + " pass", s.counts.failed + " fail"];
    if (s.counts.unscored) parts.push(s.counts.unscored + " unscored");
    if (s.counts.error) parts.push(s.counts.error + " error");
    return parts.join(" · ");
  }

  function link(id, text) {
    var a = el("a", "scenario-link", text);
    a.href = HASH + encodeURIComponent(id);
    return a;
  }

  function renderCount(ids) {
    var all = build().ids.filter(function (id) { return summary(id).models > 0; });
    var disagreeing = all.filter(function (id) { return summary(id).disagree; }).length;
    var line = document.getElementById("scenario-count");
    line.setAttribute("data-disagree", String(disagreeing));
    line.setAttribute("data-total", String(all.length));
    var text = "Models disagree on " + disagreeing + " of " + all.length + " scenarios (on one phrasing, one passes and another fails).";
    if (ids.length) {
      var start = listPage * PAGE;
      text += " Listed: " + (start + 1) + "–" + Math.min(start + PAGE, ids.length) + " of " + ids.length + (onlyDisagree ? " where they disagree." : ".");
    } else {
      text += " None listed.";
    }
    line.textContent = text;
  }

  function pager(ids) {
    window.cobeReport.pager(document.getElementById("scenario-pager"), ids.length, listPage, PAGE, function (p) {
      listPage = p;
      renderList();
    });
  }

  function renderList() {
    var ids = listed();
    listPage = Math.min(listPage, Math.max(0, Math.ceil(ids.length / PAGE) - 1));
    renderCount(ids);
    pager(ids);
    var list = document.getElementById("scenario-list");
    list.textContent = "";
    var fragment = document.createDocumentFragment();
    ids.slice(listPage * PAGE, (listPage + 1) * PAGE).forEach(function (id) {
      var s = summary(id);
      var item = el("li");
      item.setAttribute("data-scenario", id);
      item.appendChild(link(id, id));
      var sc = Object.prototype.hasOwnProperty.call(data.scenarios, id) ? data.scenarios[id] : {};
      item.appendChild(el("span", "muted", [sc.domain, sc.graph_type].filter(Boolean).join(" · ")));
      item.appendChild(el("span", null, tally(s)));
      if (s.disagree) item.appendChild(el("span", "badge disagree", "models disagree"));
      fragment.appendChild(item);
    });
    list.appendChild(fragment);
  }

  function diff(row) {
    var box = el("div", "text response");
    if (row.d === null) {
      box.appendChild(el("em", "muted", row.e ? "no response: " + row.e : "no response"));
      return box;
    }
    row.d.forEach(function (run) {
      box.appendChild(el(run[0] === "+" ? "ins" : run[0] === "-" ? "del" : "span", null, run[1]));
    });
    return box;
  }

  function verdictCell(verdict, reason, label) {
    var cell = el("td", "verdict-cell");
    var text = verdict || "unscored";
    cell.appendChild(el("span", verdict ? "v-" + verdict : "v-none", label ? label + ": " + text : text));
    if (reason) cell.appendChild(el("div", "muted", reason));
    return cell;
  }

  function modelRow(row) {
    var tr = el("tr");
    tr.setAttribute("data-model", data.labels[row.m]);
    tr.setAttribute("data-status", row.st);
    tr.appendChild(el("td", "label", data.labels[row.m]));
    var phrasing = el("td", null, row.t);
    phrasing.title = row.q;
    // --epochs K: a phrasing's answers, one per epoch, each named by its epoch
    if (row.ep != null) phrasing.appendChild(el("div", "muted epoch", "epoch " + row.ep));
    tr.appendChild(phrasing);
    var answer = el("td");
    answer.appendChild(diff(row));
    tr.appendChild(answer);
    var checks = Object.keys(data.checks);
    if (overall[row.m]) {
      // a source's one verdict per answer: no per-check detail exists to show
      var whole = verdictCell(row.st === "passed" ? "T" : row.st === "failed" ? "F" : null, row.u[checks[0]], "overall");
      whole.className += " overall";
      whole.colSpan = checks.length;
      tr.appendChild(whole);
    } else {
      checks.forEach(function (check) { tr.appendChild(verdictCell(row.v[check], row.u[check])); });
    }
    var result = el("td");
    result.appendChild(el("span", "badge st-" + row.st, row.st));
    tr.appendChild(result);
    return tr;
  }

  function textBlock(label, text) {
    var wrap = el("div");
    wrap.appendChild(el("div", "field", label));
    wrap.appendChild(el("div", "text", text));
    return wrap;
  }

  function criteria(label, items) {
    var wrap = el("div");
    wrap.appendChild(el("div", "field", label));
    var list = el("ul", "criteria");
    (items || []).forEach(function (item) { list.appendChild(el("li", null, item)); });
    wrap.appendChild(list);
    return wrap;
  }

  function neighbours(view, id) {
    var ids = listed();
    var at = ids.indexOf(id);
    var nav = el("div", "pager");
    if (at > 0) nav.appendChild(link(ids[at - 1], "‹ " + ids[at - 1]));
    nav.appendChild(el("span", "muted", at >= 0 ? "scenario " + (at + 1) + " of " + ids.length + " listed" : "not in the list below"));
    if (at >= 0 && at < ids.length - 1) nav.appendChild(link(ids[at + 1], ids[at + 1] + " ›"));
    view.appendChild(nav);
  }

  function show(id) {
    start();
    current = id;
    document.getElementById("scenario-id").value = id;
    var view = document.getElementById("scenario-view");
    view.textContent = "";
    view.setAttribute("data-scenario", id);
    var rows = build().rows[id];
    if (!rows) {
      view.appendChild(el("p", "warn", "No scenario " + id + " in this report."));
      return;
    }
    var sc = Object.prototype.hasOwnProperty.call(data.scenarios, id) ? data.scenarios[id] : {};
    var s = summary(id);
    var head = el("header");
    head.appendChild(el("h3", null, id));
    head.appendChild(el("span", "muted", [sc.domain, sc.graph_type].filter(Boolean).join(" · ")));
    head.appendChild(el("span", null, s.models + " models: " + tally(s)));
    if (s.disagree) head.appendChild(el("span", "badge disagree", "models disagree"));
    view.appendChild(head);
    neighbours(view, id);
    view.appendChild(textBlock("story", sc.story));
    var queries = {};
    rows.forEach(function (row) { if (!(row.t in queries)) queries[row.t] = row.q; });
    var asked = el("div");
    asked.appendChild(el("div", "field", "queries"));
    var list = el("ul", "criteria");
    Object.keys(queries).sort().forEach(function (t) { list.appendChild(el("li", null, t + ": " + queries[t])); });
    asked.appendChild(list);
    view.appendChild(asked);
    view.appendChild(criteria("preserve (must still hold)", sc.preserve));
    view.appendChild(criteria("change (must no longer hold)", sc.change));
    var table = el("table", "data scenario-models");
    var headRow = el("tr");
    ["model", "phrasing", "rewrite (word diff against the story)"].forEach(function (h) { headRow.appendChild(el("th", null, h)); });
    Object.keys(data.checks).forEach(function (check) { headRow.appendChild(el("th", null, data.checks[check])); });
    headRow.appendChild(el("th", null, "result"));
    table.appendChild(el("thead")).appendChild(headRow);
    var body = el("tbody");
    // phrasing by phrasing, each in the leaderboard's model order, so one phrasing's answers sit together
    rows.filter(function (row) { return chosen[row.m]; })
      .map(function (row, i) { return [row, i]; })
      .sort(function (a, b) { return a[0].t < b[0].t ? -1 : a[0].t > b[0].t ? 1 : a[0].m - b[0].m || (a[0].ep || 0) - (b[0].ep || 0) || a[1] - b[1]; })
      .forEach(function (pair) { body.appendChild(modelRow(pair[0])); });
    table.appendChild(body);
    view.appendChild(table);
  }

  function fromHash() {
    if (location.hash.indexOf(HASH) !== 0) return null;
    try {
      return decodeURIComponent(location.hash.slice(HASH.length));
    } catch (e) {
      return location.hash.slice(HASH.length);
    }
  }

  function open(id) {
    show(id);
    document.getElementById("scenarios").scrollIntoView();
  }

  function models() {
    var box = document.getElementById("scenario-models");
    data.labels.forEach(function (label, m) {
      var wrap = el("label");
      var box2 = el("input");
      box2.type = "checkbox";
      box2.checked = true;
      box2.value = String(m);
      box2.addEventListener("change", function () {
        chosen[m] = box2.checked;
        summaries = null;
        renderList();
        if (current !== null) show(current);
      });
      wrap.appendChild(box2);
      wrap.appendChild(document.createTextNode(" " + label));
      box.appendChild(wrap);
    });
  }

  function start() {
    if (started) return;
    started = true;
    models();
    renderList();
  }

  var form = document.getElementById("scenario-controls");
  var input = document.getElementById("scenario-id");
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var id = input.value.trim();
    if (!id) return;
    if (location.hash === HASH + encodeURIComponent(id)) open(id);
    else location.hash = HASH + encodeURIComponent(id);
  });
  document.getElementById("scenario-disagree").addEventListener("change", function (event) {
    start();
    onlyDisagree = event.target.checked;
    listPage = 0;
    renderList();
  });
  // a link to the scenario already shown changes no hash: open it all the same
  document.addEventListener("click", function (event) {
    var a = event.target.closest && event.target.closest('a[href^="' + HASH + '"]');
    if (a && a.getAttribute("href") === location.hash) { event.preventDefault(); open(fromHash()); }
  });
  window.addEventListener("hashchange", function () { var id = fromHash(); if (id !== null) open(id); });
  var initial = fromHash();
  if (initial !== null) {
    // opened by its link: the scenario comes first on the page and shows with no scroll at all, which every
    // browser mode draws (Chromium's own --screenshot draws a page scrolled at load as a blank image)
    var section = document.getElementById("scenarios");
    section.classList.add("linked");
    document.body.insertBefore(section, document.body.firstChild);
    show(initial);
  } else if ("IntersectionObserver" in window) {
    var watcher = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) { watcher.disconnect(); start(); }
    }, { rootMargin: "200px" });
    watcher.observe(document.getElementById("scenarios"));
  } else {
    start();
  }
})();
