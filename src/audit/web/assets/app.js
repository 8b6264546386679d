/* Regent audit: every page's `?` key help (the overlay pages.ts renders with the page's keys), and the
 * resource page's behaviour (timeline paging, keyboard stepping, edge highlight).
 * Plain browser JavaScript, no dependencies, no network beyond this server's own /api (and none at
 * all in a static `regent viz --stream` file, whose timeline is embedded).
 * Served by src/audit/web/routes.ts; inlined by src/audit/web/pages.ts for static files. */
/* global document, window, fetch, history, location, DOMPoint, EventSource */
var regentHelpOpen = (function () {
  'use strict';
  var help = document.getElementById('help');
  var opener = document.getElementById('help-open');
  if (!help) return function () { return false; };
  var before = null;
  var show = function () {
    before = document.activeElement;
    help.hidden = false;
    document.body.dataset.help = 'open';
    document.getElementById('help-close').focus();
  };
  var hide = function () {
    help.hidden = true;
    document.body.dataset.help = 'closed';
    if (before && before.focus) before.focus();
  };
  document.addEventListener('keydown', function (event) {
    var tag = event.target && event.target.tagName;
    if (event.key === 'Escape' && !help.hidden) { event.preventDefault(); hide(); return; }
    if (event.key !== '?' || tag === 'INPUT' || tag === 'TEXTAREA' || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    if (help.hidden) show(); else hide();
  });
  if (opener) opener.addEventListener('click', show);
  document.getElementById('help-close').addEventListener('click', hide);
  // A click on the dimmed backdrop (not the box) closes it.
  help.addEventListener('click', function (event) { if (event.target === help) hide(); });
  return function () { return !help.hidden; };
})();

/* The statechart box (#graph: machine, stream and resource pages), issue 30 "a statechart a person can
 * read". It holds several views of one machine, each an <svg class="chart-view"> laid out by the server
 * (graph/render.ts renderChartViews): the whole machine (data-view="whole") and, per state, a focus view
 * (data-view="focus" data-focus="<state id>": the state, every transition into and out of it, its
 * neighbours by name; groups too large for the box folded to "N transitions ›"). One is shown at a time:
 *   - first view: the focus view of the machine's initial state (machine page), of the current state
 *     (stream page: it follows the selected event; resource page: #graph[data-current-nodes]);
 *   - a neighbour's box focuses on it; "whole machine" (button, or w) shows everything, centred on the
 *     focus state, and back; a folded group's "N transitions ›" shows the whole machine there.
 * Every view opens readable: at least 1 drawing unit per pixel (every text is ≥ 11 units: graph/dot.ts
 * TEXT_PT), at most 1.6; "fit" (or 0) shows as much as fits at that scale, centred on the focus state as
 * far as that keeps the drawing in view. Drag to pan, Ctrl + wheel or a pinch (about the pointer; the
 * plain wheel scrolls the page) or + / − to zoom (out as far as the whole view fits). The view is the
 * SVG's viewBox, kept at the box's aspect ratio; each drawing's own viewBox is kept in svg.dataset.viewBox.
 * #graph[data-view] says what the view is (fit, zoomed or centred), [data-chart] which (focus or whole),
 * [data-focus] on which state. */
var regentGraph = (function () {
  'use strict';
  var none = { centre: function () {}, reveal: function () {}, focus: function () {}, focusNodes: function () {} };
  var box = document.getElementById('graph');
  if (!box) return none;
  var views = [].slice.call(box.querySelectorAll('svg.chart-view'));
  if (views.length === 0) {
    // A drawing without views (one <svg>): it is the whole machine.
    var only = box.querySelector('svg');
    if (!only) return none;
    only.classList.add('chart-view', 'shown');
    only.dataset.view = 'whole';
    views = [only];
  }
  /** Pixels per drawing unit: a view opens between these (every text ≥ 11 units, so ≥ 11 px). */
  var READABLE = 1;
  var LARGEST = 1.6;
  /** Pixels the zoom buttons take at the top of the box. */
  var TOOLBAR = 36;
  var whole = views.filter(function (v) { return v.dataset.view === 'whole'; })[0] || views[0];
  var focusViews = {};
  var domId = function (state) { return 'n--' + String(state).replace(/[^A-Za-z0-9_.-]/g, '_'); };
  /** State ids by the DOM ids of their boxes (`n--…`, what a timeline row's toNodes name). */
  var stateOf = {};
  views.forEach(function (v) {
    if (v.dataset.view === 'focus') { focusViews[v.dataset.focus] = v; stateOf[domId(v.dataset.focus)] = v.dataset.focus; }
    var vb = v.viewBox.baseVal;
    v.dataset.viewBox = [vb.x, vb.y, vb.width, vb.height].join(' ');
    v.removeAttribute('width');
    v.removeAttribute('height');
    v.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  });
  var svg = null;
  var full = null;
  var view = null;
  /** The state the box is about (its focus view's, or the one centred in the whole view). */
  var focusId = whole.dataset.initial || null;
  var wholeChosen = false;
  var size = function () { return { w: Math.max(1, box.clientWidth), h: Math.max(1, box.clientHeight) }; };
  var round = function (n) { return Math.round(n * 100) / 100; };
  var apply = function (v, kind) {
    view = v;
    svg.setAttribute('viewBox', [round(v.x), round(v.y), round(v.w), round(v.h)].join(' '));
    box.dataset.view = kind;
  };
  var toggle = null;
  var keyOf = function (id) { return id ? id.split('.').slice(1).join('.') || id : ''; };
  var show = function (v) {
    if (svg !== v) {
      views.forEach(function (x) { x.classList.toggle('shown', x === v); });
      svg = v;
      var f = v.dataset.viewBox.split(' ').map(Number);
      full = { x: f[0], y: f[1], w: f[2], h: f[3] };
    }
    box.dataset.chart = v.dataset.view;
    box.dataset.focus = focusId || '';
    if (toggle) {
      toggle.hidden = Object.keys(focusViews).length === 0;
      toggle.textContent = v === whole ? (focusId && focusViews[focusId] ? 'focus: ' + keyOf(focusId) : 'focus') : 'whole machine';
      toggle.title = v === whole ? 'back to the focus state, its transitions in and out (w)' : 'every state and transition of the machine (w)';
    }
  };
  /** Drawing units per pixel at which the shown drawing fits the box. */
  var fitUnits = function () { var s = size(); return Math.max(full.w / s.w, full.h / s.h); };
  /** Drawing units per pixel a view opens with: as much as fits, readable, not oversized. */
  var readableUnits = function () { return Math.min(1 / READABLE, Math.max(1 / LARGEST, fitUnits())); };
  /** Root-SVG user-space box of an element. */
  var boxOf = function (el) {
    var b = el.getBBox();
    var m = svg.getScreenCTM().inverse().multiply(el.getScreenCTM());
    var a = new DOMPoint(b.x, b.y).matrixTransform(m);
    var c = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(m);
    return { x: Math.min(a.x, c.x), y: Math.min(a.y, c.y), w: Math.abs(c.x - a.x), h: Math.abs(c.y - a.y) };
  };
  /** In the shown view: the element with this id (or its anchor's `a_` id). */
  var find = function (id) {
    if (!id || !svg) return null;
    return svg.querySelector('[id="' + id + '"]') || svg.querySelector('[id="a_' + id + '"]');
  };
  var stateNode = function (id) {
    var el = find(domId(id));
    return el && el.querySelector('path, polygon') ? el : null;
  };
  /**
   * Shows the drawing at `u` units per pixel around the point (cx, cy): centred on it as far as the
   * drawing allows — a drawing that fits stays wholly in view, a larger one fills the box.
   */
  var place = function (u, cx, cy, kind) {
    var s = size();
    var w = s.w * u;
    var h = s.h * u;
    // A drawing that fits below the zoom buttons is kept below them.
    var top = full.h <= (s.h - TOOLBAR) * u ? TOOLBAR * u : 0;
    var axis = function (c, len, start, extent) {
      var lo = Math.min(start, start + extent - len);
      var hi = Math.max(start, start + extent - len);
      return Math.min(hi, Math.max(lo, c - len / 2));
    };
    apply({ x: axis(cx, w, full.x, full.w), y: axis(cy, h - top, full.y, full.h) - top, w: w, h: h }, kind);
  };
  /** The focus state's centre in the shown drawing (kept: a drawing does not move, so "fit" is the same view each time). */
  var anchors = {};
  var anchor = function () {
    var key = (svg === whole ? 'whole ' : 'focus ') + focusId;
    if (anchors[key]) return anchors[key];
    var el = svg === whole ? stateNode(focusId) : svg.querySelector('g.node.focus');
    if (!el) return { x: full.x + full.w / 2, y: full.y + full.h / 2 };
    var b = boxOf(el);
    return (anchors[key] = { x: round(b.x + b.w / 2), y: round(b.y + b.h / 2) });
  };
  /** As much as fits at a readable scale, centred on the focus state. */
  var fit = function () {
    var a = anchor();
    place(readableUnits(), a.x, a.y, 'fit');
  };
  /** Zooms by `factor` keeping the drawing point under (px, py) (box pixels; the centre by default) in place. */
  var zoom = function (factor, px, py) {
    var s = size();
    if (px === undefined) { px = s.w / 2; py = s.h / 2; }
    var u = view.w / s.w;
    var nu = Math.min(Math.max(fitUnits(), 1 / READABLE), Math.max(0.1, u / factor));
    var ux = view.x + px * u;
    var uy = view.y + py * u;
    apply({ x: ux - px * nu, y: uy - py * nu, w: s.w * nu, h: s.h * nu }, 'zoomed');
  };
  /** Centres the view on an element of the shown drawing, keeping the scale or at the readable one. */
  var centre = function (el, keepScale) {
    if (!el) return;
    var s = size();
    var u = keepScale && view ? view.w / s.w : readableUnits();
    var b = boxOf(el);
    apply({ x: b.x + b.w / 2 - (s.w * u) / 2, y: b.y + b.h / 2 - (s.h * u) / 2, w: s.w * u, h: s.h * u }, 'centred');
  };
  /** Centres on the element (keeping the scale) only when it is not wholly in view. */
  var reveal = function (el) {
    if (!el || !view) return;
    var b = boxOf(el);
    if (b.x < view.x || b.y < view.y || b.x + b.w > view.x + view.w || b.y + b.h > view.y + view.h) centre(el, true);
  };
  /** The whole machine, centred on `el` (an element of it) or on the focus state. */
  var showWhole = function (el) {
    show(whole);
    var target = el || stateNode(focusId);
    if (target) centre(target); else fit();
  };
  /**
   * Focuses the box on a state: its focus view (when there is one and the reader has not chosen the
   * whole machine), else the whole machine with the state in view. `moved`: the state changed, so a
   * focus view opens afresh (else the view is kept and the state only revealed).
   */
  var focus = function (id) {
    if (!id) return;
    var moved = id !== focusId || !svg;
    focusId = id;
    var v = focusViews[id];
    if (v && !wholeChosen) {
      if (svg !== v) { show(v); fit(); } else { show(v); if (moved) fit(); }
      return;
    }
    if (svg !== whole) showWhole(); else { show(whole); if (moved) reveal(stateNode(id)); }
  };
  // The first view: the focus view the server marked (a machine page's initial state), else the one of
  // the resource page's current state; a stream page focuses on its selected event's state (below).
  var marked = views.filter(function (v) { return v.classList.contains('shown'); })[0];
  /**
   * The state to focus on among the DOM ids of a state and its ancestors (`n--…`, innermost last): the
   * innermost with a focus view, else the innermost drawn as a box in the whole machine.
   */
  var innermost = function (ids) {
    var list = (ids || []).slice().reverse();
    for (var i = 0; i < list.length; i++) if (stateOf[list[i]]) return stateOf[list[i]];
    for (var j = 0; j < list.length; j++) {
      var el = whole.querySelector('[id="' + list[j] + '"]');
      if (el && el.querySelector('path, polygon')) return (el.querySelector('title') || {}).textContent || null;
    }
    return null;
  };
  var currentNodes = (box.dataset.currentNodes || '').split(/\s+/).filter(Boolean);
  var current = innermost(currentNodes);
  // The resource page's current state, marked in every view (a stream page marks its selected event's).
  currentNodes.forEach(function (id) { [].slice.call(box.querySelectorAll('[id="' + id + '"]')).forEach(function (el) { el.classList.add('current-state'); }); });
  var tools = box.querySelector('.graph-tools');
  if (tools && Object.keys(focusViews).length > 0) {
    toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.id = 'view-toggle';
    tools.insertBefore(toggle, tools.firstChild);
    toggle.addEventListener('click', function () { switchView(); });
  }
  var switchView = function () {
    if (svg === whole) { wholeChosen = false; if (focusId && focusViews[focusId]) { show(focusViews[focusId]); fit(); } }
    else { wholeChosen = true; showWhole(); }
  };
  if (current) { focusId = null; focus(current); }
  else if (marked && marked !== whole) { focusId = marked.dataset.focus; show(marked); fit(); }
  else if (!document.getElementById('regent-data')) { show(whole); fit(); }
  else { show(whole); box.dataset.view = 'waiting'; }
  var drag = null;
  var moved = false;
  box.addEventListener('pointerdown', function (event) {
    if (event.button !== 0 || event.target.closest('.graph-tools')) return;
    drag = { x: event.clientX, y: event.clientY, view: view };
    moved = false;
  });
  window.addEventListener('pointermove', function (event) {
    if (!drag) return;
    var dx = event.clientX - drag.x;
    var dy = event.clientY - drag.y;
    if (!moved && Math.abs(dx) + Math.abs(dy) < 3) return;
    if (!moved) box.classList.add('dragging');
    moved = true;
    var u = drag.view.w / size().w;
    apply({ x: drag.view.x - dx * u, y: drag.view.y - dy * u, w: drag.view.w, h: drag.view.h }, 'zoomed');
  });
  window.addEventListener('pointerup', function () { drag = null; box.classList.remove('dragging'); });
  // A drag that ends on a transition's link does not follow it.
  box.addEventListener('click', function (event) { if (moved) { event.preventDefault(); event.stopPropagation(); moved = false; } }, true);
  // A neighbour's box focuses on it; "N transitions ›" shows the whole machine at the first of them.
  box.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a');
    var href = link && (link.getAttribute('href') || link.getAttribute('xlink:href'));
    if (href && href.indexOf('#more--') === 0) {
      event.preventDefault();
      wholeChosen = true;
      show(whole);
      showWhole(find(href.slice('#more--'.length)));
      return;
    }
    var neighbour = event.target.closest && event.target.closest('g.node.neighbour');
    if (neighbour) {
      event.preventDefault();
      var name = (neighbour.querySelector('title') || {}).textContent || '';
      wholeChosen = false;
      focus(name.slice(name.indexOf(':') + 1));
    }
  });
  box.addEventListener('wheel', function (event) {
    if (!event.ctrlKey && !event.metaKey) return; // the plain wheel scrolls the page; a pinch arrives with ctrlKey
    event.preventDefault();
    var r = box.getBoundingClientRect();
    zoom(Math.exp(-event.deltaY * 0.0015), event.clientX - r.left - box.clientLeft, event.clientY - r.top - box.clientTop);
  }, { passive: false });
  document.getElementById('zoom-in').addEventListener('click', function () { zoom(1.25); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoom(1 / 1.25); });
  document.getElementById('zoom-fit').addEventListener('click', fit);
  document.getElementById('zoom-fit').title = 'as much as the box shows readable, centred on the state in focus (0)';
  document.addEventListener('keydown', function (event) {
    var tag = event.target && event.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || event.ctrlKey || event.metaKey || event.altKey || regentHelpOpen()) return;
    if (event.key === '+' || event.key === '=') { event.preventDefault(); zoom(1.25); }
    else if (event.key === '-') { event.preventDefault(); zoom(1 / 1.25); }
    else if (event.key === '0') { event.preventDefault(); fit(); }
    else if ((event.key === 'w' || event.key === 'W') && toggle) { event.preventDefault(); switchView(); }
  });
  var last = size();
  window.addEventListener('resize', function () {
    var s = size();
    if (s.w === last.w && s.h === last.h) return;
    // Keep the scale (drawing units per pixel) and the centre of the view.
    var u = view.w / last.w;
    var cx = view.x + view.w / 2;
    var cy = view.y + view.h / 2;
    last = s;
    if (box.dataset.view === 'fit') fit();
    else apply({ x: cx - (s.w * u) / 2, y: cy - (s.h * u) / 2, w: s.w * u, h: s.h * u }, box.dataset.view);
  });
  return {
    centre: centre,
    reveal: reveal,
    focus: focus,
    /** Focuses on the innermost of these states (DOM ids, as a timeline row's toNodes). */
    focusNodes: function (ids) { focus(innermost(ids)); },
  };
})();

(function () {
  'use strict';
  var dataEl = document.getElementById('regent-data');
  if (!dataEl) return;
  var config = JSON.parse(dataEl.textContent);
  var staticRows = config.rows || null;
  var firstRevision = staticRows && staticRows.length ? staticRows[0].revision : 0;
  var head = config.head;
  var pageSize = config.pageSize || 200;
  var rows = new Map();
  var pageFrom = null;
  var current = null;
  // the revision the last select asked for (current once its page is loaded)
  var wanted = null;
  var ticket = 0;
  var query = config.version === undefined || config.version === null ? '' : '&version=' + config.version;

  var $ = function (id) { return document.getElementById(id); };
  var esc = function (text) {
    return String(text).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; });
  };
  var formatState = function (value) {
    if (value === null || value === undefined) return '∅';
    if (typeof value === 'string') return value;
    return Object.keys(value).map(function (k) { return k + '.' + formatState(value[k]); }).join(', ');
  };
  var shortTime = function (iso) { return String(iso).replace(/^\d{4}-(\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}).*$/, '$1 $2'); };
  var json = function (value) { return JSON.stringify(value, null, 2); };
  var line = function (value) { return JSON.stringify(value); };
  var pageStartOf = function (revision) { return firstRevision + Math.floor((revision - firstRevision) / pageSize) * pageSize; };

  var fetchPage = function (from) {
    if (staticRows) {
      return Promise.resolve(staticRows.filter(function (r) { return r.revision >= from && r.revision < from + pageSize; }));
    }
    return fetch(config.api + '/timeline?from=' + from + '&limit=' + pageSize + query)
      .then(function (res) { return res.json(); })
      .then(function (body) { head = body.head; return body.rows; });
  };

  var renderRows = function (list) {
    rows = new Map();
    var html = list.map(function (r) {
      rows.set(r.revision, r);
      var effects = r.effects.map(function (e) { return e.type; }).join(', ');
      // The page names the machine; the row names the outcome (the full type is the cell's title).
      var type = config.machine && r.type.indexOf(config.machine + '.') === 0 ? r.type.slice(config.machine.length + 1) : r.type;
      return '<tr data-revision="' + r.revision + '" data-edge="' + esc(r.match.edges[0] || '') + '" class="' + (r.destructive ? 'destructive' : '') + (r.revision === current ? ' selected' : '') + '">' +
        '<td class="mono">' + r.revision + '</td><td class="mono nowrap time" title="' + esc(r.recordedAt) + '">' + esc(shortTime(r.recordedAt)) + '</td>' +
        '<td class="type" title="' + esc(r.type) + '">' + esc(type) + (effects ? '<div class="effects">' + (r.destructive ? '⚠ ' : '') + esc(effects) + '</div>' : '') + '</td>' +
        '<td class="source"><span class="src ' + esc(r.source) + '">' + esc(r.source) + '</span></td>' +
        '<td class="from-to"><span class="state">' + esc(formatState(r.from)) + '</span> → <span class="state">' + esc(formatState(r.to)) + '</span></td></tr>';
    }).join('');
    $('timeline-rows').innerHTML = html || '<tr><td colspan="5" class="muted">no events</td></tr>';
    var last = list.length ? list[list.length - 1].revision : pageFrom;
    $('page-info').textContent = list.length ? 'events ' + list[0].revision + '–' + last + ' of ' + (head + 1) : 'no events';
  };

  var loadPage = function (from) {
    from = Math.max(firstRevision, Math.min(from, pageStartOf(Math.max(head, firstRevision))));
    if (pageFrom === from) return Promise.resolve();
    return fetchPage(from).then(function (list) { pageFrom = from; renderRows(list); });
  };

  // Every element with this id: the chart box's views (whole machine, focus views) share their ids.
  var byId = function (id) { return [].slice.call(document.querySelectorAll('[id="' + id + '"]')); };
  var edgeElements = function (id) {
    if (!id) return [];
    var out = byId(id).concat(byId('a_' + id));
    // A transition to several targets (parallel regions) has a cell per target: `<id>--<i>`.
    for (var i = 1; byId(id + '--' + i).length || byId('a_' + id + '--' + i).length; i++) out = out.concat(byId(id + '--' + i), byId('a_' + id + '--' + i));
    return out;
  };

  var highlight = function (row) {
    document.querySelectorAll('.current, .candidate, .current-state, .current-edge').forEach(function (el) { el.classList.remove('current', 'candidate', 'current-state', 'current-edge'); });
    var kind = row.match.kind;
    var primary = kind === 'exact' || kind === 'by-state' ? row.match.edges : [];
    primary.forEach(function (id) { edgeElements(id).forEach(function (el) { el.classList.add('current'); }); });
    if (kind === 'ambiguous') row.match.edges.forEach(function (id) { edgeElements(id).forEach(function (el) { el.classList.add('candidate'); }); });
    (row.toNodes || []).forEach(function (id) { byId(id).forEach(function (el) { el.classList.add('current-state'); }); });
    document.body.dataset.currentEdge = primary[0] || '';
    document.body.dataset.currentRevision = String(row.revision);
    // The drawn edge of a transition (its label cell's edge) is highlighted too.
    // (and, through a junction, the edge from its source into the junction's point).
    primary.forEach(function (id) {
      edgeElements(id).forEach(function (el) { var g = el.closest && el.closest('g.edge'); if (g && g !== el) g.classList.add('current-edge'); });
      byId(id + '--in').forEach(function (el) { el.classList.add('current-edge'); });
    });
    // The graph follows: the focus view of the state the event left the machine in.
    regentGraph.focusNodes(row.toNodes || []);
  };

  var matchText = function (match) {
    if (match.kind === 'exact') return match.edges.join(', ') + ' (the transition the machine takes on replay)';
    if (match.kind === 'by-state') return match.edges.join(', ') + ' (matched by recorded from → to and stimulus type: the machine no longer reproduces this history)';
    if (match.kind === 'ambiguous') return 'ambiguous: ' + match.edges.length + ' candidate transitions (' + match.edges.join(', ') + ')';
    return 'no transition of this machine version matches';
  };

  var renderEvent = function (row) {
    var panel = $('event-panel');
    panel.dataset.revision = String(row.revision);
    panel.dataset.edge = row.match.edges[0] || '';
    var causation = row.causationId ? (rowById(row.causationId) ? '<a href="#rev-' + rowById(row.causationId).revision + '">' + esc(row.causationId) + '</a>' : esc(row.causationId)) : '—';
    panel.innerHTML = '<h3>Event <span id="event-revision">' + row.revision + '</span> · ' + esc(row.type) + '</h3><dl>' +
      '<dt>recorded</dt><dd class="mono">' + esc(row.recordedAt) + ' (machine v' + row.machineVersion + ')</dd>' +
      '<dt>source</dt><dd><span class="src ' + esc(row.source) + '">' + esc(row.source) + '</span> · actor <code>' + esc(row.actor) + '</code></dd>' +
      '<dt>from → to</dt><dd>' + esc(formatState(row.from)) + ' → ' + esc(formatState(row.to)) + '</dd>' +
      '<dt>effects</dt><dd>' + (row.effects.length ? '<pre>' + esc(line(row.effects)) + '</pre>' + (row.destructive ? '<b class="verdict bad">destructive</b>' : '') : 'none') + '</dd>' +
      '<dt>transition</dt><dd class="mono" id="event-edge">' + esc(matchText(row.match)) + '</dd>' +
      '<dt>correlation</dt><dd class="mono">' + esc(row.correlationId) + '</dd>' +
      '<dt>causation</dt><dd class="mono">' + causation + '</dd>' +
      '<dt>stimulus</dt><dd><details open><summary>' + esc(row.data.type) + ' from ' + esc(row.data.source) + '</summary><pre>' + esc(json(row.data)) + '</pre></details></dd></dl>';
  };

  var rowById = function (id) {
    var found = null;
    rows.forEach(function (r) { if (r.id === id) found = r; });
    return found;
  };

  var renderState = function (view, revision) {
    var panel = $('state-panel');
    if (!panel || !view) return;
    panel.dataset.revision = String(revision);
    panel.innerHTML = '<h3>State as of revision ' + revision + ': ' + esc(formatState(view.state)) + '</h3><dl>' +
      '<dt>knew</dt><dd>' + (view.lastObservation ? 'last observation, revision <a href="#rev-' + view.lastObservation.revision + '">' + view.lastObservation.revision + '</a> at ' + esc(view.lastObservation.recordedAt) + '<pre>' + esc(line(view.lastObservation.stimulus)) + '</pre>' : 'no observation yet') + '</dd>' +
      '<dt>decided</dt><dd>' + (view.lastDecision ? 'last decision, revision <a href="#rev-' + view.lastDecision.revision + '">' + view.lastDecision.revision + '</a> ' + esc(view.lastDecision.type) + (view.lastDecision.effects.length ? '<pre>' + esc(line(view.lastDecision.effects)) + '</pre>' : '') : 'no decision yet') + '</dd>' +
      '<dt>context</dt><dd><details><summary>context as of revision ' + revision + '</summary><pre>' + esc(json(view.context)) + '</pre></details></dd></dl>';
  };

  // Scrolls the timeline (only it) so the row shows below the sticky column header: scrollIntoView
  // would leave a row it scrolls up to under that header, and scroll the whole page besides.
  var revealRow = function (tr) {
    var wrap = $('timeline-wrap');
    var headerHeight = wrap.querySelector('thead').getBoundingClientRect().height;
    var box = wrap.getBoundingClientRect();
    var row = tr.getBoundingClientRect();
    var top = row.top - box.top - wrap.clientTop + wrap.scrollTop;
    var bottom = top + row.height;
    if (top - headerHeight < wrap.scrollTop) wrap.scrollTop = Math.max(0, top - headerHeight);
    else if (bottom > wrap.scrollTop + wrap.clientHeight) wrap.scrollTop = bottom - wrap.clientHeight;
  };

  var select = function (revision) {
    if (head < firstRevision) return Promise.resolve();
    revision = Math.max(firstRevision, Math.min(head, revision));
    wanted = revision;
    var mine = ++ticket;
    return loadPage(pageStartOf(revision)).then(function () {
      if (mine !== ticket) return;
      var row = rows.get(revision);
      if (!row) return;
      current = revision;
      document.querySelectorAll('#timeline-rows tr.selected').forEach(function (tr) { tr.classList.remove('selected'); });
      var tr = document.querySelector('#timeline-rows tr[data-revision="' + revision + '"]');
      if (tr) { tr.classList.add('selected'); revealRow(tr); }
      highlight(row);
      renderEvent(row);
      if (history.replaceState) history.replaceState(null, '', '#rev-' + revision);
      if (!staticRows) {
        fetch(config.api + '/state?at=' + revision + query).then(function (res) { return res.json(); }).then(function (view) {
          if (mine === ticket) renderState(view, revision);
        });
      }
    });
  };

  var fromHash = function () {
    var m = /^#rev-(\d+)$/.exec(location.hash);
    return m ? Number(m[1]) : null;
  };

  document.addEventListener('keydown', function (event) {
    var tag = event.target && event.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA') return;
    if (current === null || regentHelpOpen()) return;
    if (event.key === 'ArrowRight') { event.preventDefault(); select(current + 1); }
    else if (event.key === 'ArrowLeft') { event.preventDefault(); select(current - 1); }
    else if (event.key === 'Home') { event.preventDefault(); select(firstRevision); }
    else if (event.key === 'End') { event.preventDefault(); select(head); }
  });
  $('timeline-rows').addEventListener('click', function (event) {
    var tr = event.target.closest('tr[data-revision]');
    if (tr) select(Number(tr.dataset.revision));
  });
  document.querySelectorAll('tr.fired-edge').forEach(function (tr) {
    tr.addEventListener('click', function () { select(Number(tr.dataset.first)); });
  });
  var page = function (delta) { return function () { loadPage((pageFrom === null ? firstRevision : pageFrom) + delta * pageSize); }; };
  $('page-first').addEventListener('click', function () { loadPage(firstRevision); });
  $('page-prev').addEventListener('click', page(-1));
  $('page-next').addEventListener('click', page(1));
  $('page-last').addEventListener('click', function () { loadPage(pageStartOf(head)); });
  $('goto').addEventListener('submit', function (event) {
    event.preventDefault();
    var value = Number($('goto-revision').value);
    if (!Number.isNaN(value)) select(value);
  });
  // Compare: what changed in state and context between two revisions (the server's structural diff).
  var compareForm = $('compare');
  if (compareForm) {
    compareForm.addEventListener('submit', function (event) {
      event.preventDefault();
      var from = $('compare-from').value === '' ? (current === null ? 0 : current) : Number($('compare-from').value);
      var to = $('compare-to').value === '' ? head : Number($('compare-to').value);
      fetch(config.api + '/compare?from=' + from + '&to=' + to + query).then(function (res) { return res.json(); }).then(function (diff) {
        var title = 'revision ' + diff.from.revision + ' (' + esc(formatState(diff.from.state)) + ') → revision ' + diff.to.revision + ' (' + esc(formatState(diff.to.state)) + '): ' + diff.changes.length + ' change(s)';
        var body = diff.changes.map(function (c) {
          var before = c.kind === 'added' ? '<span class="muted">—</span>' : '<code>' + esc(line(c.before)) + '</code>';
          var after = c.kind === 'removed' ? '<span class="muted">—</span>' : '<code>' + esc(line(c.after)) + '</code>';
          return '<tr class="change ' + c.kind + '"><td class="mono">' + esc(c.path) + '</td><td>' + c.kind + '</td><td>' + before + '</td><td>' + after + '</td></tr>';
        }).join('');
        $('compare-result').innerHTML = '<p id="compare-title">' + title + '</p>' + (body ? '<table id="compare-changes"><thead><tr><th>path</th><th>change</th><th>before</th><th>after</th></tr></thead><tbody>' + body + '</tbody></table>' : '<p class="muted">nothing changed</p>');
      });
    });
  }
  window.addEventListener('hashchange', function () {
    var revision = fromHash();
    if (revision !== null && revision !== current) select(revision);
  });
  // Live history: the stream's new events as the store records them (server-sent events). The timeline's
  // last page follows; a reader on the newest event moves with it; one reading an older event stays put.
  var follow = function () {
    var status = $('live-status');
    if (staticRows || !status || typeof EventSource === 'undefined') return;
    var source = new EventSource(config.api + '/live');
    source.addEventListener('ready', function () { status.textContent = 'live: following new events'; status.classList.remove('muted'); });
    source.addEventListener('appended', function (message) {
      var event = JSON.parse(message.data);
      if (event.revision <= head) return;
      var wasAtHead = wanted === head;
      var onLastPage = pageFrom !== null && pageFrom === pageStartOf(head);
      head = event.revision;
      $('event-count').textContent = String(head + 1);
      $('current-state').textContent = formatState(event.to);
      status.textContent = 'live: revision ' + head + ' just recorded';
      if (wasAtHead) { pageFrom = null; select(head); }
      else if (onLastPage) { var keep = pageFrom; pageFrom = null; loadPage(keep); }
      else $('page-info').textContent = $('page-info').textContent.replace(/ of \d+$/, ' of ' + (head + 1));
    });
    source.onerror = function () { status.textContent = 'live: reconnecting…'; status.classList.add('muted'); };
  };
  var start = fromHash();
  select(start === null ? head : start).then(function () { document.body.dataset.ready = 'true'; follow(); });
})();
// --- machine checks (fetched) ---
// A machine page served before its static checks were known says "checks running…" (#checks-section
// data-checks="running"): ask the server again (data-src, /api/machines/<id>/checks) every second or two until
// they are known or failed, then show them in place. Each ask answers at once; nothing here waits on the server.
(function () {
  'use strict';
  var section = document.getElementById('checks-section');
  if (!section || section.dataset.checks !== 'running' || !section.dataset.src) return;
  var src = section.dataset.src;
  var delay = 1000;
  var ask = function () {
    fetch(src, { headers: { accept: 'application/json' } })
      .then(function (res) { return res.json(); })
      .then(function (body) {
        if (body.status === 'done' || body.status === 'failed') {
          section.outerHTML = body.html;
          return;
        }
        delay = Math.min(delay + 500, 3000);
        window.setTimeout(ask, delay);
      })
      .catch(function () { window.setTimeout(ask, 3000); });
  };
  window.setTimeout(ask, delay);
})();
