// Interactive flame graph: hover, click to zoom, reset, regex search.
// Built for 100,000+ frames: every frame is data (compact JSON columns), only the
// frames a person can see are elements. The file comes with those elements drawn
// (svg_flame.c); the pointer is hit-tested against the data, and zoom and search
// redraw with render(), the same rule as the writer's: a <rect> per frame at least
// drawMin px wide (the widest drawMax), one "grass" <rect> per run of narrower
// adjacent frames. Label widths are estimated from the font, never measured.
// Names are only ever set as text.
'use strict';
(function () {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.documentElement;
  const cfg = JSON.parse(document.getElementById('flame-config').textContent);
  const view = document.getElementById('view');
  const framesG = document.getElementById('frames');
  const labelsG = document.getElementById('labels');
  const header = document.getElementById('header');
  const footer = document.getElementById('footer');
  const details = document.getElementById('details').firstChild;
  const unzoomBtn = document.getElementById('unzoom');
  const searchBtn = document.getElementById('search');
  const matchedText = document.getElementById('matched');
  // a data column: base-32 digits, the last of a number from 0-9A-V, the others from
  // W-Za-z+/; "~text;" for a number that is no integer (svg_flame.c's put_packed)
  const DIG = new Int8Array(128).fill(-1);
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/'.split('').forEach((c, i) => { DIG[c.charCodeAt(0)] = i; });
  function unpack(s) {
    if (s === undefined) return undefined;
    const out = new Float64Array(cfg.count);
    let v = 0, k = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 126) { const j = s.indexOf(';', i); out[k++] = +s.slice(i + 1, j); i = j; continue; }
      const d = DIG[c];
      if (d >= 32) v = v * 32 + d - 32;
      else { out[k++] = v * 32 + d; v = 0; }
    }
    return out;
  }
  // names: one per line, each the length of the prefix shared with the one before (32 + n)
  // and the rest; every 64th shares nothing, so a name is decoded when first needed from
  // at most 63 before it (decoding all up front is 0.2 s of a 150,000-frame graph's start)
  const packedNames = cfg.names.split('\n'), names = new Array(packedNames.length);
  function nameOf(j) {
    if (names[j] !== undefined) return names[j];
    let k = j;
    while (k & 63 && names[k - 1] === undefined) k--;
    for (; k <= j; k++) {
      const e = packedNames[k];
      names[k] = (k & 63 ? names[k - 1].substring(0, e.charCodeAt(0) - 32) : '') + e.substring(1);
    }
    return names[j];
  }
  const D = unpack(cfg.d), V = unpack(cfg.v), B = unpack(cfg.b);
  const n = D.length, fh = cfg.frameHeight, maxDepth = cfg.maxDepth, viewW = cfg.viewWidth;
  const pxPer = cfg.total > 0 ? viewW / cfg.total : 0;
  const charW = cfg.fontsize * cfg.fontwidth;

  // x of every frame from the gaps (as svg_flame.c wrote them), parents, frames by depth
  const X = new Float64Array(n), P = new Int32Array(n), NAME = new Int32Array(n);
  const depthCount = new Int32Array(maxDepth + 2);
  {
    const cursor = new Float64Array(maxDepth + 2), last = new Int32Array(maxDepth + 1).fill(-1);
    const G = unpack(cfg.g), N = unpack(cfg.n);
    let seen = 0, prevD = -1;   // a name's id is counted back from the next new name: 0 = a new name
    for (let i = 0; i < n; i++) {
      NAME[i] = N[i] ? seen - N[i] : seen++;
      const d = D[i] = prevD + 1 - D[i], x = cursor[d] + G[i];
      prevD = d;
      X[i] = x;
      cursor[d] = x + V[i];
      cursor[d + 1] = x;
      P[i] = d ? last[d - 1] : -1;
      last[d] = i;
      depthCount[d + 1]++;
    }
  }
  // frames by depth, each depth in x order (the preorder is): a counting sort
  const byDepth = new Int32Array(n), depthStart = new Int32Array(maxDepth + 2);
  for (let d = 1; d <= maxDepth + 1; d++) depthStart[d] = depthStart[d - 1] + depthCount[d];
  {
    const at = depthStart.slice();
    for (let i = 0; i < n; i++) byDepth[at[D[i]]++] = i;
  }
  let zoomed = -1, scale = 1, offset = 0, searchRe = null, nameHit = null;

  // ---- numbers, as svg_flame.c's put_value ----
  function count(v) {
    if (!Number.isInteger(v) || Math.abs(v) >= 1e18) return v.toFixed(2);
    return (v < 0 ? '-' : '') + Math.abs(v).toFixed(0).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }
  function value(v) {
    v *= cfg.factor;
    if (cfg.unitSeconds > 0) {
      const sec = v * cfg.unitSeconds;
      if (sec === 0) return '0 s';
      const units = [[1, 's'], [1e-3, 'ms'], [1e-6, '\u00b5s'], [1e-9, 'ns']];
      let k = 0;
      while (k < 3 && Math.abs(sec) < units[k][0]) k++;
      const x = sec / units[k][0];
      const t = Math.abs(x) >= 100 ? count(Math.round(x)) : x.toFixed(Math.abs(x) >= 10 ? 1 : 2);
      return t + ' ' + units[k][1];
    }
    return count(v) + ' ' + cfg.unit;
  }
  function tip(i) {
    let s = value(V[i]) + ', ' + (cfg.total > 0 ? 100 * V[i] / cfg.total : 0).toFixed(2) + '%';
    if (B) {
      const d = V[i] - B[i];
      s += '; before ' + value(B[i]) + ', ' + (d >= 0 ? '+' : '-') + value(Math.abs(d));
      if (B[i] > 0) s += ' (' + (d >= 0 ? '+' : '') + (100 * d / B[i]).toFixed(1) + '%)';
      else if (V[i] > 0) s += ' (new)';
    }
    return s;
  }
  function tooltip(i) { return nameOf(NAME[i]) + ' (' + tip(i) + ')'; }

  // ---- labels: the longest form of the name that fits, else the shortest cut ----
  function fit(i, width) {
    const chars = Math.floor((width - 6) / charW);
    if (chars < 3) return '';
    const full = nameOf(NAME[i]);
    if (full.length <= chars) return full;
    const forms = cfg.labels[NAME[i]];
    let t = full;
    if (forms) for (const f of forms) { t = f; if (f.length <= chars) return f; }
    return t.length <= chars ? t : t.substring(0, chars - 2) + '..';
  }

  // ---- drawing (the rule of svg_flame.c's writer) ----
  const yOf = (d) => (cfg.inverted ? d : maxDepth - d) * fh;
  function rectEl(cls, x, y, w, fill) {
    const r = document.createElementNS(NS, 'rect');
    r.setAttribute('class', cls);
    r.setAttribute('x', x.toFixed(2));
    r.setAttribute('y', y);
    r.setAttribute('width', w.toFixed(2));
    r.setAttribute('height', fh - 1);
    r.setAttribute('fill', fill);
    return r;
  }
  // colours: 3 characters each, 6 bits a channel (svg_flame.c's put_packed_color)
  const channel = (c) => { const q = DIG[cfg.colors.charCodeAt(c)]; return q << 2 | q >> 4; };
  const color = (k) => 'rgb(' + channel(3 * k) + ',' + channel(3 * k + 1) + ',' + channel(3 * k + 2) + ')';
  function fillOf(i) { return nameHit && nameHit[NAME[i]] ? cfg.searchcolor : color(cfg.colorsPer === 'frame' ? i : NAME[i]); }
  const vis = new Int32Array(n), vw = new Float64Array(n);
  function render() {
    const k = pxPer * scale;
    // visible width of every visible frame
    let m = 0;
    for (let i = 0; i < n; i++) {
      const x = X[i] * k + offset, w = V[i] * k;
      if (x + w <= 1e-6 || x >= viewW - 1e-6) continue;
      vis[m] = i;
      vw[m++] = Math.min(x + w, viewW) - Math.max(x, 0);
    }
    let thr = cfg.drawMin, wide = 0;
    for (let j = 0; j < m; j++) if (vw[j] >= thr) wide++;
    if (wide > cfg.drawMax) thr = vw.slice(0, m).sort()[m - cfg.drawMax];
    const anc = new Set();
    for (let a = zoomed >= 0 ? P[zoomed] : -1; a >= 0; a = P[a]) anc.add(a);
    const rects = document.createDocumentFragment(), texts = document.createDocumentFragment();
    const grass = [];   // per depth: [x, end, widest, fill, hit]
    const closeGrass = (d) => {
      const g = grass[d];
      if (g) rects.appendChild(rectEl('g', g[0], yOf(d), g[1] - g[0], g[3]));
      grass[d] = null;
    };
    for (let j = 0; j < m; j++) {
      const i = vis[j], d = D[i], w = vw[j], x = Math.max(X[i] * k + offset, 0), fill = fillOf(i);
      if (w >= thr || d === 0) {
        closeGrass(d);
        const r = rectEl(anc.has(i) ? 'f parent' : 'f', x, yOf(d), w, fill);
        r.setAttribute('data-i', i);
        rects.appendChild(r);
        const text = fit(i, w);
        if (text) {
          const t = document.createElementNS(NS, 'text');
          t.setAttribute('data-i', i);
          t.setAttribute('x', (x + 3).toFixed(1));
          t.setAttribute('y', (yOf(d) + fh / 2 + cfg.fontsize / 3).toFixed(1));
          t.textContent = text;
          texts.appendChild(t);
        }
      } else {
        // narrow frames: one rect per run; search hits and the rest are separate runs
        const hit = fill === cfg.searchcolor;
        let g = grass[d];
        if (g && (x - g[1] >= cfg.grassGap || g[4] !== hit)) { closeGrass(d); g = null; }
        if (!g) g = grass[d] = [x, x, -1, fill, hit];
        g[1] = x + w;
        if (w > g[2]) { g[2] = w; g[3] = fill; }
      }
    }
    for (let d = 0; d < grass.length; d++) closeGrass(d);
    framesG.replaceChildren(rects);
    labelsG.replaceChildren(texts);
  }
  function zoom(i) {
    zoomed = i;
    scale = viewW / (V[i] * pxPer);
    offset = -X[i] * pxPer * scale;
    unzoomBtn.setAttribute('class', '');
    render();
  }
  function unzoom() {
    zoomed = -1;
    scale = 1;
    offset = 0;
    unzoomBtn.setAttribute('class', 'hide');
    render();
  }

  // ---- the pointer: hit-tested against the data, drawn or not ----
  function frameAt(clientX, clientY) {
    const box = view.getBoundingClientRect();
    if (!box.width || !box.height) return -1;
    const px = (clientX - box.left) * viewW / box.width;
    const py = (clientY - box.top) * (maxDepth + 1) * fh / box.height;
    if (px < 0 || px >= viewW || py < 0) return -1;
    const row = Math.floor(py / fh);
    const d = cfg.inverted ? row : maxDepth - row;
    if (d < 0 || d > maxDepth) return -1;
    const lx = (px - offset) / (pxPer * scale);
    let lo = depthStart[d], hi = depthStart[d + 1] - 1, at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (X[byDepth[mid]] <= lx) { at = byDepth[mid]; lo = mid + 1; } else hi = mid - 1;
    }
    return at >= 0 && lx < X[at] + V[at] ? at : -1;
  }
  let hovered = -1;
  view.addEventListener('mousemove', function (e) {
    const i = frameAt(e.clientX, e.clientY);
    if (i === hovered) return;
    hovered = i;
    details.nodeValue = i >= 0 ? cfg.nametype + ' ' + tooltip(i) : ' ';
    // the browser's own tooltip
    const el = e.target;
    if (i >= 0 && el.tagName === 'rect') {
      let t = el.firstChild;
      if (!t) { t = document.createElementNS(NS, 'title'); el.appendChild(t); }
      t.textContent = tooltip(i);
    }
  });
  view.addEventListener('mouseleave', function () { hovered = -1; details.nodeValue = ' '; });
  view.addEventListener('click', function (e) {
    const i = frameAt(e.clientX, e.clientY);
    if (i >= 0) zoom(i);
  });
  unzoomBtn.addEventListener('click', unzoom);

  // ---- search ----
  function search(pattern) {
    if (!pattern) return resetSearch();
    try {
      searchRe = new RegExp(pattern, cfg.ignorecase ? 'i' : '');
    } catch (err) {
      matchedText.textContent = 'Bad regular expression';
      return;
    }
    nameHit = new Uint8Array(names.length);
    for (let j = 0; j < names.length; j++) nameHit[j] = searchRe.test(nameOf(j)) ? 1 : 0;
    // matched share without double counting nested matches: union of x ranges (preorder is x order)
    let covered = 0, end = -Infinity;
    for (let i = 0; i < n; i++) {
      if (!nameHit[NAME[i]]) continue;
      const s = X[i], e = X[i] + V[i];
      if (s >= end) { covered += V[i]; end = e; } else if (e > end) { covered += e - end; end = e; }
    }
    const pct = cfg.total > 0 ? 100 * covered / cfg.total : 0;
    matchedText.textContent = 'Matched: ' + (pct >= 100 ? '100' : pct.toFixed(1)) + '%';
    searchBtn.textContent = 'Reset Search';
    searchBtn.setAttribute('class', 'active');
    render();
  }
  function resetSearch() {
    const was = nameHit !== null;
    searchRe = null;
    nameHit = null;
    matchedText.textContent = ' ';
    searchBtn.textContent = 'Search';
    searchBtn.setAttribute('class', '');
    if (was) render();
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

  // ---- the first screen ----
  // A flame graph grows up from its base: open scrolled to the bottom so the root and
  // the widest frames are on screen however deep the stacks, and keep the title bar
  // (Search, Reset Zoom) and the details line in view while scrolling.
  function stick() {
    const box = svg.getBoundingClientRect();
    const k = box.height / svg.viewBox.baseVal.height || 1;
    const top = Math.max(0, -box.top / k);
    const bottom = -Math.max(0, (box.bottom - window.innerHeight) / k);
    header.setAttribute('transform', top > 0 ? 'translate(0,' + top.toFixed(1) + ')' : '');
    footer.setAttribute('transform', bottom < 0 ? 'translate(0,' + bottom.toFixed(1) + ')' : '');
  }
  window.addEventListener('scroll', stick, { passive: true });
  window.addEventListener('resize', stick);
  window.addEventListener('beforeprint', function () { header.removeAttribute('transform'); footer.removeAttribute('transform'); });
  window.addEventListener('afterprint', stick);
  if (!cfg.inverted && window.top === window && svg.getBoundingClientRect().height > window.innerHeight)
    window.scrollTo(0, svg.getBoundingClientRect().height);
  stick();

  // API for scripts and tests
  window.nodescope = {
    zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch, count: n,
    find: function (name) { for (let i = 0; i < n; i++) if (nameOf(NAME[i]) === name) return i; return -1; },
    tooltip: tooltip, frameAt: frameAt,
    rectOf: function (i) { return framesG.querySelector('rect[data-i="' + i + '"]'); },
  };
  const params = new URLSearchParams(window.location.search);
  if (params.get('s')) search(params.get('s'));
  svg.setAttribute('data-ready', '1');
})();
