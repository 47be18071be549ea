// watch --heap's HTML report (issue 31) opened in headless Chromium: a short watch of
// tests/fixtures/leak/leaky.js (LeakySession leaks 200/s; LruEntry fills a 2400-entry LRU at
// 1200/s, then stays) written with -o report.html. In the page: the embedded JSON (#leak-data)
// parses and names LeakySession growing; the charts are drawn (polylines with one point per
// census); read from the drawn points, LeakySession's line rises at every census and ends near the
// top, LruEntry's chart is drawn and flattens (it rises less than a third as much
// over its second half as over its first); the heap total's chart is
// there. A screenshot is kept in $LEAK_SHOTS when set (else in the test's directory).
import { chromium } from 'playwright-core';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';

const tmp = process.env.TEST_TMP || fs.mkdtempSync('/tmp/leak-report-');
const ns = process.env.NODESCOPE_RELEASE || process.env.NODESCOPE || 'build/nodescope';
const shots = process.env.LEAK_SHOTS || tmp;
const node20 = 'tests/.cache/node/20/bin/node';
const nodeBin = fs.existsSync(node20) ? node20 : process.execPath;
const pidFile = path.join(tmp, 'leaky.pid'), report = path.join(tmp, 'report.html');

const child = spawn(nodeBin, ['tests/fixtures/leak/leaky.js', pidFile, '200'], { stdio: 'ignore' });
let browser;
try {
  for (let i = 0; i < 100 && !(fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8')); i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  execFileSync(ns, ['watch', '-p', String(child.pid), '--heap', '--every', '1s', '-d', '6', '-o', report], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 120000 });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + path.resolve(report));
  const got = await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('leak-data').textContent);
    const charts = {};
    for (const fig of document.querySelectorAll('figure.chart')) {
      const svg = fig.querySelector('svg'), line = fig.querySelector('polyline.line');
      const pts = line.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number));
      const plot = fig.querySelector('rect.plot').getBBox();
      const box = line.getBoundingClientRect();
      charts[fig.dataset.name] = { trend: fig.dataset.trend, pts, plotTop: plot.y, plotH: plot.height, drawnH: box.height, drawnW: box.width, ymax: +svg.dataset.ymax };
    }
    return { data, charts };
  });
  assert.deepEqual(errors, []);
  const n = got.data.censuses.length;
  assert.ok(n >= 6, 'censuses: ' + n);
  assert.equal(got.data.growing[0], 'LeakySession', 'growing: ' + got.data.growing);
  assert.ok(!got.data.growing.includes('LruEntry'), 'LruEntry growing');
  const leak = got.charts.LeakySession, lru = got.charts.LruEntry, total = got.charts['(heap total)'];
  assert.ok(leak && lru && total, 'charts: ' + Object.keys(got.charts));
  assert.equal(leak.trend, 'growing');
  assert.equal(leak.pts.length, n);
  // SVG y grows downwards: rising = smaller y at every census, ending in the top tenth of the plot
  for (let i = 1; i < n; i++) assert.ok(leak.pts[i][1] < leak.pts[i - 1][1], `LeakySession's line does not rise at census ${i}: ${JSON.stringify(leak.pts)}`);
  assert.ok(leak.pts[n - 1][1] < leak.plotTop + leak.plotH * 0.1, 'LeakySession does not end near the top');
  assert.ok(leak.drawnH > leak.plotH * 0.5, 'LeakySession line drawn ' + leak.drawnH + ' px high');
  // the LRU: filled in the first half, then flat (a stale table a conservative root reaches may
  // add a step: a third of the first half's rise is allowed)
  const mid = Math.floor(n / 2), ly = lru.pts.map((p) => p[1]);
  const firstRise = ly[0] - ly[mid], secondRise = ly[mid] - ly[n - 1];
  assert.ok(firstRise > lru.plotH * 0.3 && secondRise < firstRise / 3, 'LruEntry does not flatten: ' + JSON.stringify(lru.pts));
  assert.ok(lru.trend !== 'growing', 'LruEntry trend ' + lru.trend);
  // the drawn points are the data: LeakySession's counts against the line's heights
  const counts = got.data.classes.find((c) => c.name === 'LeakySession').counts;
  for (let i = 0; i < n; i++) {
    const y = leak.plotTop + leak.plotH - (leak.plotH * counts[i]) / leak.ymax;
    assert.ok(Math.abs(y - leak.pts[i][1]) < 0.1, `point ${i} is not count ${counts[i]}`);
  }
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'leak_report.png'), fullPage: true });
  console.log(`ok: ${n} censuses; LeakySession rises ${JSON.stringify(counts)}; LruEntry ${lru.trend}; screenshot ${path.join(shots, 'leak_report.png')}`);
} finally {
  if (browser) await browser.close();
  child.kill();
}
