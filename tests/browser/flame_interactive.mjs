// The flame graph SVG in real headless Chromium: hover, click to zoom, reset,
// search (button and Ctrl-F) with the matched share, hostile names stay text,
// and a graph of 100,000+ frames loads and zooms quickly.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';

const tmp = process.env.TEST_TMP || fs.mkdtempSync('/tmp/flame-');
const ns = process.env.NODESCOPE || 'build/tst/nodescope';
const hostile = '<img src=x onerror="window.__pwned=1">';
const folded = [
  'node;main;parseRecords;JSON.parse 60',
  'node;main;parseRecords 20',
  'node;main;sortNumbers 15',
  'node;main;<script>window.__pwned=1</script> 3',
  `node;main;${hostile} 1`,
  'node;main;a&b "q" \'x\' 日本語 1',
].join('\n') + '\n';
fs.writeFileSync(path.join(tmp, 'small.folded'), folded);
execFileSync(ns, ['flame', path.join(tmp, 'small.folded'), '-o', path.join(tmp, 'small.svg')]);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 600 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('file://' + path.join(tmp, 'small.svg'));
  await page.waitForSelector('svg[data-ready="1"]');

  // hostile names render as text, nothing executes
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'a frame name executed');
  const titles = await page.$$eval('#frames title', (ts) => ts.map((t) => t.textContent));
  assert.ok(titles.some((t) => t.startsWith(hostileStart())), 'hostile name not shown literally');
  function hostileStart() { return '<img src=x onerror='; }
  assert.ok(titles.some((t) => t.startsWith('a&b "q" \'x\' 日本語')), 'quotes/ampersand/UTF-8 name mangled');
  assert.equal(await page.$$eval('img', (x) => x.length), 0, 'markup from a name became an element');

  const rectOf = async (name) => {
    const i = await page.evaluate((nm) => window.nodescope.find(nm), name);
    assert.ok(i >= 0, 'no frame ' + name);
    return page.locator('#frames rect.f').nth(i);
  };

  // hover: details line shows name, samples and percentage
  const parse = await rectOf('parseRecords');
  await parse.hover();
  const details = await page.textContent('#details');
  assert.match(details, /parseRecords \(80 samples, 80\.00%\)/, 'hover details: ' + details);

  // click zooms: parseRecords fills the view; Reset Zoom restores
  const before = (await parse.boundingBox()).width;
  await parse.click();
  const zoomed = (await parse.boundingBox()).width;
  assert.ok(zoomed > before * 1.2, `zoom did not widen the frame (${before} -> ${zoomed})`);
  assert.ok(await page.isVisible('#unzoom'), 'Reset Zoom not shown');
  const sortRect = await rectOf('sortNumbers');
  const sortBox = await sortRect.boundingBox();
  // the view ends at x = 10 + 1180: a sibling must lie outside it (clipped)
  assert.ok(!sortBox || sortBox.x >= 1189 || sortBox.x + sortBox.width <= 11, 'sibling still inside the view after zoom: ' + JSON.stringify(sortBox));
  await page.click('#unzoom');
  const after = (await parse.boundingBox()).width;
  assert.ok(Math.abs(after - before) <= 1, `reset zoom: ${after} vs ${before}`);
  assert.ok(!(await page.isVisible('#unzoom')), 'Reset Zoom still shown');

  // search via the button: matched share counts nested matches once
  page.once('dialog', (d) => d.accept('^(parseRecords|JSON)'));
  await page.click('#search');
  assert.equal((await page.textContent('#matched')).trim(), 'Matched: 80.0%');
  assert.equal(await parse.getAttribute('fill'), 'rgb(230,0,230)');
  assert.notEqual(await sortRect.getAttribute('fill'), 'rgb(230,0,230)');
  await page.click('#search');   // Reset Search
  assert.notEqual(await parse.getAttribute('fill'), 'rgb(230,0,230)');
  // Ctrl-F opens the same search
  page.once('dialog', (d) => d.accept('sort'));
  await page.keyboard.press('Control+f');
  assert.equal((await page.textContent('#matched')).trim(), 'Matched: 15.0%');
  assert.deepEqual(errors, [], 'page errors: ' + errors.join('; '));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);

  // 100,000+ frames: loads, zooms and searches without freezing
  const lines = [];
  let frames = 0;
  for (let a = 0; a < 60 && frames < 120000; a++)
    for (let b = 0; b < 60; b++)
      for (let c = 0; c < 35; c++) { lines.push(`root;mod${a};fn${a}_${b};leaf${a}_${b}_${c} ${1 + ((a * 7 + b * 3 + c) % 13)}`); frames++; }
  fs.writeFileSync(path.join(tmp, 'big.folded'), lines.join('\n') + '\n');
  execFileSync(ns, ['flame', '--minwidth', '0', path.join(tmp, 'big.folded'), '-o', path.join(tmp, 'big.svg')]);
  const big = await browser.newPage({ viewport: { width: 1300, height: 300 } });
  let t0 = Date.now();
  await big.goto('file://' + path.join(tmp, 'big.svg'));
  await big.waitForSelector('svg[data-ready="1"]', { timeout: 60000 });
  const loadMs = Date.now() - t0;
  const count = await big.evaluate(() => window.nodescope.count);
  assert.ok(count > 100000, 'only ' + count + ' frames');
  t0 = Date.now();
  const zoomMs = await big.evaluate(() => { const t = performance.now(); window.nodescope.zoom(5); return performance.now() - t; });
  const searchMs = await big.evaluate(() => { const t = performance.now(); window.nodescope.search('fn1_'); return performance.now() - t; });
  const unzoomMs = await big.evaluate(() => { const t = performance.now(); window.nodescope.unzoom(); return performance.now() - t; });
  console.log(`100k+ frames (${count}): load ${loadMs} ms, zoom ${zoomMs.toFixed(0)} ms, search ${searchMs.toFixed(0)} ms, unzoom ${unzoomMs.toFixed(0)} ms`);
  assert.ok(zoomMs < 3000 && searchMs < 3000 && unzoomMs < 3000, 'interaction too slow');
  console.log('PASS');
} finally {
  await browser.close();
}
