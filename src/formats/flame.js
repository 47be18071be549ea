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
  const rects = frames.children;   // <rect class="f">, one per frame, in data order
  const n = rects.length;
  const X = new Float64Array(n), W = new Float64Array(n), D = new Int32Array(n);
  const names = new Array(n), fills = new Array(n), shown = new Array(n).fill('');
  const textEls = new Array(n).fill(null);   // labels exist only where a frame is wide enough
  for (let i = 0; i < n; i++) {
    const r = rects[i];
    X[i] = +r.getAttribute('x');
    W[i] = +r.getAttribute('width');
    names[i] = cfg.names[cfg.frames[2 * i]];
    D[i] = cfg.frames[2 * i + 1];
    fills[i] = r.getAttribute('fill');
  }
  for (const t of labels.children) {
    const i = +t.getAttribute('data-i');
    textEls[i] = t;
    shown[i] = t.textContent;
  }
  const labelY = (i) => +rects[i].getAttribute('y') + cfg.frameHeight / 2 + cfg.fontsize / 3;
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
        let el = textEls[i];
        if (!el && text) {
          el = textEls[i] = document.createElementNS('http://www.w3.org/2000/svg', 'text');
          el.setAttribute('y', labelY(i).toFixed(1));
          labels.appendChild(el);
        }
        if (el) el.textContent = text;
      }
      if (text) textEls[i].setAttribute('x', (Math.max(x, 0) + 3).toFixed(1));
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
      if (rects[j].getAttribute('class') !== want) rects[j].setAttribute('class', want);
    }
    unzoomBtn.setAttribute('class', '');
    relabel();
  }
  function unzoom() {
    zoomed = -1;
    scale = 1;
    offset = 0;
    frames.removeAttribute('transform');
    for (let j = 0; j < n; j++) if (rects[j].getAttribute('class') !== 'f') rects[j].setAttribute('class', 'f');
    unzoomBtn.setAttribute('class', 'hide');
    relabel();
  }
  const indexOf = new Map();
  function frameIndex(target) {
    if (!target || target.parentNode !== frames) return -1;
    if (!indexOf.size) for (let i = 0; i < n; i++) indexOf.set(rects[i], i);
    const i = indexOf.get(target);
    return i === undefined ? -1 : i;
  }
  function tooltip(i) { return names[i] + ' (' + cfg.tips[i] + ')'; }
  frames.addEventListener('mouseover', function (e) {
    const i = frameIndex(e.target);
    if (i < 0) return;
    details.nodeValue = cfg.nametype + ' ' + tooltip(i);
    // narrow frames carry no <title> in the file: add it for the browser's tooltip
    if (!rects[i].firstChild) {
      const t = document.createElementNS('http://www.w3.org/2000/svg', 'title');
      t.textContent = tooltip(i);
      rects[i].appendChild(t);
    }
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
      const rect = rects[i];
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
    const pct = cfg.viewWidth > 0 ? 100 * covered / cfg.viewWidth : 0;
    matchedText.textContent = 'Matched: ' + (pct >= 100 ? '100' : pct.toFixed(1)) + '%';
    searchBtn.textContent = 'Reset Search';
    searchBtn.setAttribute('class', 'active');
  }
  function resetSearch() {
    searchRe = null;
    for (let i = 0; i < n; i++) {
      if (rects[i].getAttribute('fill') !== fills[i]) rects[i].setAttribute('fill', fills[i]);
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
  window.nodescope = {
    zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch, count: n,
    find: function (name) { return names.indexOf(name); },
    tooltip: tooltip,
  };
  const params = new URLSearchParams(window.location.search);
  if (params.get('s')) search(params.get('s'));
  svg.setAttribute('data-ready', '1');
})();
