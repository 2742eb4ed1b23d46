// The response browser: filters and paginates the embedded rows. Untrusted text (model output,
// dataset text, judge output) is only ever set through textContent, never parsed as HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  window.cobeReport = { data: data };  // the scenario view (scenarios.js) reads the same parse, no copy
  var PAGE = 25;
  var page = 0;
  var ALL = "";
  var filters = {};
  var matching = data.rows;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function scenario(row) { return data.scenarios[row.s] || {}; }

  function options(name, values, labeller) {
    var select = document.querySelector('[data-filter="' + name + '"]');
    select.appendChild(el("option", null, "all")).value = ALL;
    values.forEach(function (value) {
      var option = el("option", null, labeller ? labeller(value) : value);
      option.value = value;
      select.appendChild(option);
    });
    select.addEventListener("change", function () { filters[name] = select.value; apply(); });
  }

  function distinct(getter) {
    var seen = {};
    data.rows.forEach(function (row) {
      [].concat(getter(row)).forEach(function (v) { if (v !== null && v !== undefined) seen[v] = true; });
    });
    return Object.keys(seen).sort();
  }

  function checkOptions() {
    var values = [];
    Object.keys(data.checks).forEach(function (check) {
      ["F", "T", "unscored"].forEach(function (outcome) { values.push(check + ":" + outcome); });
    });
    return values;
  }

  function matches(row) {
    var sc = scenario(row);
    if (filters.model && String(row.m) !== filters.model) return false;
    if (filters.template && row.t !== filters.template) return false;
    if (filters.domain && sc.domain !== filters.domain) return false;
    if (filters.graph && sc.graph_type !== filters.graph) return false;
    if (filters.mode && (sc.failure_modes || []).indexOf(filters.mode) < 0) return false;
    if (filters.status && row.st !== filters.status) return false;
    if (filters.check) {
      var parts = filters.check.split(":");
      var verdict = row.v[parts[0]];
      if (parts[1] === "unscored" ? (verdict === "T" || verdict === "F" || row.st === "error") : verdict !== parts[1]) return false;
    }
    if (filters.search && row.s.toLowerCase().indexOf(filters.search.toLowerCase()) < 0) return false;
    return true;
  }

  function apply() {
    matching = data.rows.filter(matches);
    page = 0;
    render();
  }

  // previous / next buttons and "page N of M" for `count` items, `size` a page; go(p) shows page p
  // (the response list and the scenario view's list both page with it)
  function pagerInto(container, count, current, size, go) {
    container.textContent = "";
    var pages = Math.max(1, Math.ceil(count / size));
    var prev = el("button", null, "‹ previous");
    prev.type = "button";
    prev.disabled = current === 0;
    prev.addEventListener("click", function () { go(current - 1); });
    var next = el("button", null, "next ›");
    next.type = "button";
    next.disabled = current >= pages - 1;
    next.addEventListener("click", function () { go(current + 1); });
    container.appendChild(prev);
    container.appendChild(el("span", "muted", "page " + (current + 1) + " of " + pages));
    container.appendChild(next);
  }
  window.cobeReport.pager = pagerInto;

  function pager(container) {
    pagerInto(container, matching.length, page, PAGE, function (p) { page = p; render(); });
  }

  function textBlock(label, text) {
    var wrap = el("div");
    wrap.appendChild(el("div", "field", label));
    wrap.appendChild(el("div", "text", text));
    return wrap;
  }

  function diffBlock(row) {
    var wrap = el("div");
    wrap.appendChild(el("div", "field", "response (word diff against the story)"));
    var box = el("div", "text response");
    if (row.d === null) {
      box.appendChild(el("em", "muted", row.e ? "no response: " + row.e : "no response"));
    } else {
      row.d.forEach(function (run) {
        var tag = run[0] === "+" ? "ins" : run[0] === "-" ? "del" : "span";
        box.appendChild(el(tag, null, run[1]));
      });
    }
    wrap.appendChild(box);
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

  // a long text (a judge's raw reply, the illustrative answer) folded under one line that says what it is
  function folded(summary, className, text) {
    var box = el("details", className);
    box.appendChild(el("summary", null, summary));
    box.appendChild(el("pre", null, text));
    return box;
  }

  // row.p: the judge's P(T) per check, in the order of data.checks
  function checkBox(row, check, position) {
    var box = el("div", "verdict");
    box.setAttribute("data-check", check);
    var verdict = row.v[check];
    var chance = row.p ? row.p[position] : null;
    box.appendChild(el("span", null, data.checks[check] + ": "));
    box.appendChild(el("span", verdict ? "v-" + verdict : "v-none", verdict || "unscored"));
    if (typeof chance === "number") box.appendChild(el("span", "p-true muted", " P(T) = " + chance.toFixed(2)));
    if (row.u[check]) box.appendChild(el("div", "muted", "reason: " + row.u[check]));
    var raw = row.r[check];
    if (raw) box.appendChild(folded("judge's reply (" + raw.length + (raw.length === 1 ? " character)" : " characters)"), "raw", raw));
    return box;
  }

  // a model whose source gave one verdict per response, none per check: that verdict, once
  function overallBox(row, judge) {
    var box = el("div", "verdict overall");
    var verdict = row.st === "passed" ? "T" : row.st === "failed" ? "F" : null;
    box.appendChild(el("span", null, "verdict" + (judge ? " of " + judge : "") + ": "));
    box.appendChild(el("span", verdict ? "v-" + verdict : "v-none", verdict || (row.st === "error" ? "none (no response)" : "unscored")));
    var reasons = Object.keys(row.u).map(function (check) { return row.u[check]; }).filter(Boolean);
    if (reasons.length) box.appendChild(el("div", "muted", "reason: " + reasons[0]));
    box.appendChild(el("div", "muted", "one verdict per response: the source gives none per check"));
    return box;
  }

  function card(row) {
    var sc = scenario(row);
    var node = el("article", "card");
    node.setAttribute("data-status", row.st);
    var head = el("header");
    head.appendChild(el("strong", null, row.s));
    head.appendChild(el("span", null, "template " + row.t));
    if (row.ep != null) head.appendChild(el("span", "epoch", "epoch " + row.ep));  // --epochs K
    head.appendChild(el("span", "label", data.labels[row.m]));
    head.appendChild(el("span", "badge st-" + row.st, row.st));
    head.appendChild(el("span", "muted", [sc.domain, sc.graph_type].filter(Boolean).join(" · ")));
    var every = el("a", "scenario-link", "every model on this scenario");
    every.href = "#scenario=" + encodeURIComponent(row.s);
    head.appendChild(every);
    node.appendChild(head);
    node.appendChild(textBlock("story", sc.story));
    node.appendChild(textBlock("query", row.q));
    node.appendChild(diffBlock(row));
    if (sc.illustrative) node.appendChild(folded("illustrative answer (one valid rewrite, not scored)", "illustrative", sc.illustrative));
    var verdicts = el("div", "verdicts");
    if (Object.prototype.hasOwnProperty.call(data.overall, String(row.m))) {
      verdicts.appendChild(overallBox(row, data.overall[String(row.m)]));
    } else {
      Object.keys(data.checks).forEach(function (check, position) { verdicts.appendChild(checkBox(row, check, position)); });
    }
    node.appendChild(verdicts);
    node.appendChild(criteria("preserve (must still hold)", sc.preserve));
    node.appendChild(criteria("change (must no longer hold)", sc.change));
    return node;
  }

  function render() {
    var list = document.getElementById("rows");
    list.textContent = "";
    var start = page * PAGE;
    var fragment = document.createDocumentFragment();
    matching.slice(start, start + PAGE).forEach(function (row) { fragment.appendChild(card(row)); });
    list.appendChild(fragment);
    var shown = matching.length ? (start + 1) + "–" + Math.min(start + PAGE, matching.length) : "0";
    document.getElementById("count").textContent = "Showing " + shown + " of " + matching.length + " rows (" + data.rows.length + " in all).";
    pager(document.getElementById("pager-top"));
    pager(document.getElementById("pager-bottom"));
  }

  options("model", data.labels.map(function (_, i) { return String(i); }), function (i) { return data.labels[Number(i)]; });
  options("template", distinct(function (r) { return r.t; }));
  options("domain", distinct(function (r) { return scenario(r).domain; }));
  options("graph", distinct(function (r) { return scenario(r).graph_type; }));
  options("mode", distinct(function (r) { return scenario(r).failure_modes || []; }), function (m) { return data.failureLabels[m] || m; });
  options("status", ["passed", "failed", "unscored", "error"]);
  options("check", checkOptions(), function (v) { var p = v.split(":"); return data.checks[p[0]] + " = " + p[1]; });
  var search = document.querySelector('[data-filter="search"]');
  search.addEventListener("input", function () { filters.search = search.value.trim(); apply(); });
  render();
})();
