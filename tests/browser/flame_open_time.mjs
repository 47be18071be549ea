// A flame graph of 125,000+ frames is interactive soon after navigation: from
// page.goto to the pointer's first answer (hover a frame, the details line names
// it), then zoom and search work. Required: under 1.5 s on this 2-core VM; the
// limit grows with the load average (other jobs share the cores), at most to 4 s,
// which the renderer of one element per frame (13-14 s here) never met.
// The best of two openings counts.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';

const tmp = process.env.TEST_TMP || fs.mkdtempSync('/tmp/flame-');
const ns = process.env.NODESCOPE_RELEASE || process.env.NODESCOPE || 'build/nodescope';

// Node-like stacks: a bootstrap, module functions, many distinct leaves (deterministic)
let seed = 7;
const rnd = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
const lines = [];
const boot = 'node;__libc_start_call_main;node::Start;node::NodeMainInstance::Run;node::LoadEnvironment;v8::internal::Execution::Call;Builtins_JSEntry';
for (let a = 0; a < 60; a++)
  for (let b = 0; b < 60; b++)
    for (let c = 0; c < 36; c++)
      lines.push(`${boot};JS:*route${a} /app/routes/r${a}.js:1:1;JS:*handler${a}_${b} /app/h/h${a}.js:${b + 1}:3;leaf${a}_${b}_${c} ${1 + rnd(13)}`);
fs.writeFileSync(path.join(tmp, 'big.folded'), lines.join('\n') + '\n');
const svg = path.join(tmp, 'big.svg');
execFileSync(ns, ['flame', '-q', '--minwidth', '0', path.join(tmp, 'big.folded'), '-o', svg]);

const load = os.loadavg()[0] / os.cpus().length;
const limit = Math.min(4000, 1500 * Math.max(1, load));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
try {
  let best = Infinity, page;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (page) await page.close();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const t0 = Date.now();
    await page.goto('file://' + svg, { waitUntil: 'commit' });
    // the pointer on a frame, until the details line answers
    await page.hover('#frames rect.f', { timeout: 60000 });
    await page.waitForFunction(() => /^Function: /.test(document.getElementById('details').textContent), null, { timeout: 60000, polling: 10 });
    const ms = Date.now() - t0;
    console.log(`attempt ${attempt + 1}: interactive after ${ms} ms`);
    best = Math.min(best, ms);
  }
  const count = await page.evaluate(() => window.nodescope.count);
  assert.ok(count >= 125000, 'only ' + count + ' frames');
  const bytes = fs.statSync(svg).size;
  console.log(`${count} frames, ${(bytes / 1e6).toFixed(1)} MB: interactive after ${best} ms (limit ${limit.toFixed(0)} ms at load ${load.toFixed(2)} per core)`);
  assert.ok(best < limit, `not interactive within ${limit.toFixed(0)} ms: ${best} ms`);

  // zoom, search and reset work on it, quickly
  const t = await page.evaluate(() => {
    const api = window.nodescope, i = api.find('JS:*handler7_7 /app/h/h7.js:8:3');
    const t0 = performance.now(); api.zoom(i); const t1 = performance.now();
    api.search('^leaf7_7_'); const t2 = performance.now();
    const matched = document.getElementById('matched').textContent;
    api.unzoom(); api.resetSearch(); const t3 = performance.now();
    return { zoom: t1 - t0, search: t2 - t1, reset: t3 - t2, matched, i };
  });
  console.log(`zoom ${t.zoom.toFixed(0)} ms, search ${t.search.toFixed(0)} ms, reset ${t.reset.toFixed(0)} ms, ${t.matched}`);
  assert.ok(t.i > 0);
  assert.match(t.matched, /^Matched: 0\.\d%$/);
  assert.ok(t.zoom < 2000 && t.search < 2000 && t.reset < 2000, 'interaction too slow');
  // a leaf far narrower than a pixel answers the pointer once zoomed in
  await page.evaluate(() => window.nodescope.zoom(window.nodescope.find('JS:*handler7_7 /app/h/h7.js:8:3')));
  const leaf = page.locator('#frames rect.f', { hasText: '' }).last();
  await leaf.hover();
  assert.match(await page.textContent('#details'), /^Function: (leaf7_7_\d+|JS:\*handler7_7) /);
  console.log('PASS');
} finally {
  await browser.close();
}
