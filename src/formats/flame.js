// Interactive flame graph: hover, click to zoom, reset, regex search.
// Built for 100,000+ frames: zooming scales one group with a transform (the
// browser does the work) and rewrites only the labels whose text changes, with
// widths estimated from the font instead of measured (no layout thrashing).
// Frame data is read once from the DOM; names are only ever set as text.
'use strict';
(function () {
  const svg = document.documentElement;
  const cfg = JSON.parse(document.getElementById('flame-config').textContent);
  const frames = document.getElementById('frames');
  const labels = document.getElementById('labels');
  const details = document.getElementById('details').firstChild;
  const unzoomBtn = document.getElementById('unzoom');
  const searchBtn = document.getElementById('search');
  const matchedText = document.getElementById('matched');
  const groups = frames.children;
  const n = groups.length;
  const X = new Float64Array(n), W = new Float64Array(n), D = new Int32Array(n);
  const names = new Array(n), values = new Array(n), fills = new Array(n), shown = new Array(n);
  const textEls = labels.children;
  for (let i = 0; i < n; i++) {
    const g = groups[i], r = g.children[1];
    X[i] = +r.getAttribute('x');
    W[i] = +r.getAttribute('width');
    D[i] = +g.getAttribute('data-d');
    const t = g.firstChild.textContent;
    const m = /^([\s\S]*) \(([^()]*)\)$/.exec(t);
    names[i] = m ? m[1] : t;
    values[i] = m ? m[2] : '';
    fills[i] = r.getAttribute('fill');
    shown[i] = textEls[i].textContent;
  }
  const charW = cfg.fontsize * cfg.fontwidth;
  let zoomed = -1, scale = 1, offset = 0, searchRe = null;

  function fit(name, width) {
    const fitChars = Math.floor(width / charW);
    if (fitChars < 3) return '';
    if (name.length <= fitChars) return name;
    return name.substring(0, fitChars - 2) + '..';
  }
  function relabel() {
    for (let i = 0; i < n; i++) {
      const x = X[i] * scale + offset, w = W[i] * scale;
      const visible = x + w > 0 && x < cfg.viewWidth;
      const text = visible ? fit(names[i], Math.min(x + w, cfg.viewWidth) - Math.max(x, 0) - 6) : '';
      if (text !== shown[i]) {
        shown[i] = text;
        const el = textEls[i];
        el.textContent = text;
        if (text) el.setAttribute('x', (Math.max(x, 0) + 3).toFixed(1));
      } else if (text) {
        textEls[i].setAttribute('x', (Math.max(x, 0) + 3).toFixed(1));
      }
    }
  }
  function zoom(i) {
    zoomed = i;
    scale = cfg.viewWidth / W[i];
    offset = -X[i] * scale;
    frames.setAttribute('transform', 'matrix(' + scale + ' 0 0 1 ' + offset + ' 0)');
    for (let j = 0; j < n; j++) {
      // ancestors are stretched over the whole width: fade them like flamegraph.pl
      const anc = D[j] < D[i] && X[j] <= X[i] + 1e-6 && X[j] + W[j] >= X[i] + W[i] - 1e-6;
      const want = anc ? 'f parent' : 'f';
      if (groups[j].getAttribute('class') !== want) groups[j].setAttribute('class', want);
    }
    unzoomBtn.setAttribute('class', '');
    relabel();
  }
  function unzoom() {
    zoomed = -1;
    scale = 1;
    offset = 0;
    frames.removeAttribute('transform');
    for (let j = 0; j < n; j++) if (groups[j].getAttribute('class') !== 'f') groups[j].setAttribute('class', 'f');
    unzoomBtn.setAttribute('class', 'hide');
    relabel();
  }
  function frameIndex(target) {
    const g = target.closest ? target.closest('g.f') : null;
    if (!g || g.parentNode !== frames) return -1;
    return Array.prototype.indexOf.call(groups, g);
  }
  function describe(i) {
    return cfg.nametype + ' ' + names[i] + ' (' + values[i] + ')';
  }
  frames.addEventListener('mouseover', function (e) {
    const i = frameIndex(e.target);
    if (i >= 0) details.nodeValue = describe(i);
  });
  frames.addEventListener('mouseout', function () { details.nodeValue = ' '; });
  frames.addEventListener('click', function (e) {
    const i = frameIndex(e.target);
    if (i >= 0) zoom(i);
  });
  unzoomBtn.addEventListener('click', unzoom);

  function search(pattern) {
    if (!pattern) return resetSearch();
    try {
      searchRe = new RegExp(pattern, cfg.ignorecase ? 'i' : '');
    } catch (err) {
      matchedText.textContent = 'Bad regular expression';
      return;
    }
    // matched share without double counting nested matches: union of x ranges
    const hits = [];
    for (let i = 0; i < n; i++) {
      const m = searchRe.test(names[i]);
      const rect = groups[i].children[1];
      const want = m ? cfg.searchcolor : fills[i];
      if (rect.getAttribute('fill') !== want) rect.setAttribute('fill', want);
      if (m) hits.push(i);
    }
    hits.sort(function (a, b) { return X[a] - X[b]; });
    let covered = 0, end = -Infinity;
    for (const i of hits) {
      const s = X[i], e = X[i] + W[i];
      if (s >= end) { covered += W[i]; end = e; } else if (e > end) { covered += e - end; end = e; }
    }
    const pct = cfg.viewWidth > 0 ? 100 * covered / cfg.rootWidth : 0;
    matchedText.textContent = 'Matched: ' + (pct >= 100 ? '100' : pct.toFixed(1)) + '%';
    searchBtn.textContent = 'Reset Search';
    searchBtn.setAttribute('class', 'active');
  }
  function resetSearch() {
    searchRe = null;
    for (let i = 0; i < n; i++) {
      const rect = groups[i].children[1];
      if (rect.getAttribute('fill') !== fills[i]) rect.setAttribute('fill', fills[i]);
    }
    matchedText.textContent = ' ';
    searchBtn.textContent = 'Search';
    searchBtn.setAttribute('class', '');
  }
  function searchPrompt() {
    if (searchRe) return resetSearch();
    const p = window.prompt('Enter a search term (regexp allowed, eg: ^JS:\\*)', '');
    if (p !== null) search(p);
  }
  searchBtn.addEventListener('click', searchPrompt);
  window.addEventListener('keydown', function (e) {
    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {
      e.preventDefault();
      searchPrompt();
    } else if ((e.ctrlKey || e.metaKey) && e.keyCode === 73) {
      e.preventDefault();
      cfg.ignorecase = !cfg.ignorecase;
      if (searchRe) search(searchRe.source);
    }
  });
  // API for scripts and tests: nodescope.zoom(i), .unzoom(), .search(re), .resetSearch()
  window.nodescope = { zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch, count: n };
  const params = new URLSearchParams(window.location.search);
  if (params.get('s')) search(params.get('s'));
  svg.setAttribute('data-ready', '1');
})();
