/* Regent audit: the plan view (GET /plan, src/audit/web/plan-page.ts; issue 32).
 * Sends the form — the pasted manifests, then each uploaded file, read here and sent as text — to the server's
 * /plan/view (the same body as POST /api/plan) and inserts the answer: per resource its decisions, and per stream
 * that decided its machine's statechart with the decisions drawn over it (server-rendered views: graph/render.ts).
 * Each chart shows one view at a time, at one drawing unit per pixel (every text ≥ 11 px; the box scrolls): the
 * focus view of the state a step left, with that step's transitions and states marked as the stream page marks the
 * selected event (app.css `current`, `current-edge`, `current-state`); every step's transitions stay coloured, the
 * destructive ones apart (plan.css). "whole machine" shows everything, and back.
 * Plain browser JavaScript, no dependencies, nothing fetched but this server's own /plan/view. */
/* global document, fetch */
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var configEl = $('plan-config');
  if (!configEl) return;
  var config = JSON.parse(configEl.textContent);
  var form = $('plan-form');
  var textarea = $('plan-manifests');
  var input = $('plan-files');
  var status = $('plan-status');
  var result = $('plan-result');

  // Every element with this id inside `root` (a chart's views share their ids).
  var byId = function (root, id) { return [].slice.call(root.querySelectorAll('[id="' + id + '"]')); };
  /** A transition's elements in `root`: its cell or label (`a_<id>`), a cell per target (`--i`), a junction's in-edge. */
  var edgeElements = function (root, id) {
    var out = byId(root, id).concat(byId(root, 'a_' + id));
    for (var i = 1; byId(root, id + '--' + i).length || byId(root, 'a_' + id + '--' + i).length; i++) out = out.concat(byId(root, id + '--' + i), byId(root, 'a_' + id + '--' + i));
    return out;
  };
  /** Marks a transition: its cell with `cls`, the drawn edge holding it (and a junction's in-edge) with `edgeCls`. */
  var markEdge = function (root, id, cls, edgeCls) {
    edgeElements(root, id).forEach(function (el) {
      el.classList.add(cls);
      var g = el.closest && el.closest('g.edge');
      if (g && g !== el) g.classList.add(edgeCls);
    });
    byId(root, id + '--in').forEach(function (el) { el.classList.add(edgeCls); });
  };
  var words = function (text) { return String(text || '').split(/\s+/).filter(Boolean); };

  /** One chart: its step buttons, its views (whole machine, a focus view per state the plan visits). */
  var setUpChart = function (section) {
    var box = section.querySelector('.plan-graph');
    var views = [].slice.call(box.querySelectorAll('svg.chart-view'));
    if (views.length === 0) return;
    views.forEach(function (v) {
      // one drawing unit per pixel: the view's own size, the box scrolls
      var vb = v.viewBox.baseVal;
      v.setAttribute('width', String(Math.ceil(vb.width)));
      v.setAttribute('height', String(Math.ceil(vb.height)));
    });
    var whole = views.filter(function (v) { return v.dataset.view === 'whole'; })[0] || views[0];
    var focusView = function (state) { return views.filter(function (v) { return v.dataset.view === 'focus' && v.dataset.focus === state; })[0]; };
    var steps = [].slice.call(section.querySelectorAll('button.plan-step'));
    var wholeButton = section.querySelector('button.plan-whole');
    // every step's transitions, coloured in every view; a destructive step's apart
    steps.forEach(function (b) {
      var destructive = b.classList.contains('destructive');
      words(b.dataset.edges).forEach(function (id) { markEdge(box, id, destructive ? 'plan-destructive' : 'plan-taken', destructive ? 'plan-destructive-edge' : 'plan-taken-edge'); });
    });
    var selected = null;
    var wholeChosen = false;
    var show = function (v) {
      views.forEach(function (x) { x.classList.toggle('shown', x === v); });
      section.dataset.view = v === whole ? 'whole' : 'focus';
      section.dataset.focus = v === whole ? '' : v.dataset.focus;
      if (wholeButton) wholeButton.textContent = v === whole ? 'focus on the step' : 'whole machine';
    };
    /** Scrolls the box so `el` (an element of the shown view) is in its middle. */
    var centre = function (el) {
      if (!el) return;
      var b = el.getBoundingClientRect();
      var r = box.getBoundingClientRect();
      box.scrollLeft += b.left + b.width / 2 - (r.left + r.width / 2);
      box.scrollTop += b.top + b.height / 2 - (r.top + r.height / 2);
    };
    var select = function (button) {
      selected = button;
      steps.forEach(function (b) { b.classList.toggle('selected', b === button); b.setAttribute('aria-pressed', String(b === button)); });
      [].slice.call(box.querySelectorAll('.current, .current-edge, .current-state, .plan-from, .plan-to')).forEach(function (el) { el.classList.remove('current', 'current-edge', 'current-state', 'plan-from', 'plan-to'); });
      words(button.dataset.edges).forEach(function (id) { markEdge(box, id, 'current', 'current-edge'); });
      words(button.dataset.from).forEach(function (id) { byId(box, id).forEach(function (el) { el.classList.add('plan-from'); }); });
      words(button.dataset.to).forEach(function (id) { byId(box, id).forEach(function (el) { el.classList.add('current-state', 'plan-to'); }); });
      section.dataset.step = button.dataset.step;
      var v = wholeChosen ? whole : focusView(button.dataset.focus) || whole;
      show(v);
      var focusBox = v === whole ? byId(v, 'n--' + String(button.dataset.focus).replace(/[^A-Za-z0-9_.-]/g, '_'))[0] : v.querySelector('g.node.focus');
      box.scrollLeft = 0;
      box.scrollTop = 0;
      centre(focusBox);
    };
    steps.forEach(function (b) { b.addEventListener('click', function () { select(b); }); });
    // As on the other pages: "N transitions ›" shows the whole machine there; a neighbour's box shows that state
    // (its focus view when the plan visits it, else the whole machine around it). A transition's own link stays put.
    box.addEventListener('click', function (event) {
      var link = event.target.closest && event.target.closest('a');
      var href = link && (link.getAttribute('href') || link.getAttribute('xlink:href'));
      var neighbour = event.target.closest && event.target.closest('g.node.neighbour');
      if (!href && !neighbour) return;
      event.preventDefault();
      if (href && href.indexOf('#more--') === 0) {
        wholeChosen = true;
        show(whole);
        centre(byId(whole, href.slice('#more--'.length))[0] || byId(whole, 'a_' + href.slice('#more--'.length))[0]);
      } else if (neighbour) {
        var name = (neighbour.querySelector('title') || {}).textContent || '';
        var state = name.slice(name.indexOf(':') + 1);
        var v = focusView(state);
        show(v || whole);
        centre(v ? v.querySelector('g.node.focus') : byId(whole, 'n--' + state.replace(/[^A-Za-z0-9_.-]/g, '_'))[0]);
      }
    });
    if (wholeButton) wholeButton.addEventListener('click', function () { wholeChosen = !wholeChosen; if (selected) select(selected); else show(whole); });
    if (steps.length > 0) select(steps[0]); else show(whole);
  };

  var showFiles = function () {
    var names = [].slice.call(input.files || []).map(function (f) { return f.name; });
    $('plan-file-list').textContent = names.length ? names.length + ' file(s): ' + names.join(', ') : '';
  };
  if (input) input.addEventListener('change', showFiles);

  /** The manifests as the API takes them: the pasted text first, then each chosen file, read as text. */
  var gather = function () {
    var files = [];
    if (textarea.value.trim() !== '') files.push(Promise.resolve({ name: 'pasted manifests', text: textarea.value }));
    [].slice.call(input.files || []).forEach(function (f) { files.push(f.text().then(function (text) { return { name: f.name, text: text }; })); });
    return Promise.all(files);
  };

  var busy = false;
  var submit = function () {
    if (busy) return;
    gather().then(function (files) {
      if (files.length === 0) { status.textContent = 'paste manifests or choose files first'; return; }
      busy = true;
      $('plan-submit').disabled = true;
      status.textContent = 'planning…';
      var started = Date.now();
      var body = { files: files };
      var resource = $('plan-resource').value.trim();
      if (resource) body.resource = resource;
      return fetch(config.view, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/html' }, body: JSON.stringify(body) })
        .then(function (res) { return res.text().then(function (html) { return { ok: res.ok, status: res.status, html: html }; }); })
        .then(function (answer) {
          result.innerHTML = answer.html;
          [].slice.call(result.querySelectorAll('section.plan-chart')).forEach(setUpChart);
          status.textContent = answer.ok ? 'planned in ' + ((Date.now() - started) / 1000).toFixed(1) + ' s (nothing written)' : 'not planned (' + answer.status + ')';
          document.body.dataset.plan = answer.ok ? 'done' : 'error';
        });
    }).catch(function (error) {
      result.innerHTML = '';
      var banner = document.createElement('div');
      banner.className = 'banner bad';
      banner.id = 'plan-error';
      banner.textContent = 'the plan could not be asked for: ' + (error && error.message ? error.message : String(error));
      result.appendChild(banner);
      status.textContent = '';
      document.body.dataset.plan = 'error';
    }).then(function () {
      busy = false;
      $('plan-submit').disabled = false;
    });
  };
  form.addEventListener('submit', function (event) { event.preventDefault(); submit(); });
  textarea.addEventListener('keydown', function (event) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); submit(); }
  });
  document.body.dataset.plan = 'ready';
})();
