// The first screen of a flame graph shows the profile: a real Node capture
// (examples/node-perf.txt: 20+ frames of bootstrap under the JS) plus broken
// unwinds (runs of up to 127 [unknown] frames under the JS, as perf gives them),
// opened in a 1400x900 window without scrolling: the root, its children and the
// hottest JS function's label are on screen, below the title bar, and the labels
// use the width (short C++ names instead of "v8.."). Also for --inverted,
// --reverse and --flamechart. Screenshots are kept in $FLAME_SHOTS when set.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';

const tmp = process.env.TEST_TMP || fs.mkdtempSync('/tmp/flame-');
const ns = process.env.NODESCOPE || 'build/tst/nodescope';
const shots = process.env.FLAME_SHOTS;

// the capture, folded, plus a broken unwind of every JS stack: node, 127 frames in all, the top 8 real
const folded = execFileSync(ns, ['collapse', '--no-resolve', 'examples/node-perf.txt'], { encoding: 'utf8', maxBuffer: 1 << 28 });
const lines = folded.trim().split('\n');
const broken = [];
for (const line of lines) {
  const sp = line.lastIndexOf(' '), frames = line.slice(0, sp).split(';'), w = +line.slice(sp + 1);
  if (!frames.some((f) => f.startsWith('JS:')) || frames.length < 10) continue;
  const top = frames.slice(-8);
  broken.push([frames[0], ...Array(127 - 1 - top.length).fill('[unknown]'), ...top].join(';') + ' ' + Math.round(w * 0.3));
}
assert.ok(broken.length > 50, 'too few JS stacks in the example: ' + broken.length);
fs.writeFileSync(path.join(tmp, 'deep.folded'), lines.concat(broken).join('\n') + '\n');
// the cpuprofile shape: frames with url and line fields
const cpuprofile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2] },
    { id: 2, callFrame: { functionName: 'main', url: 'file:///home/someone/projects/app/src/server/index.js', lineNumber: 10, columnNumber: 0 }, children: [3, 4] },
    { id: 3, callFrame: { functionName: 'computeEverythingSlowly', url: 'file:///home/someone/projects/app/src/server/lib/compute.js', lineNumber: 41, columnNumber: 2 } },
    { id: 4, callFrame: { functionName: 'render', url: 'file:///home/someone/projects/app/src/server/lib/render.js', lineNumber: 3, columnNumber: 2 } },
  ],
  startTime: 0, endTime: 100000, samples: [], timeDeltas: [],
};
for (let i = 0; i < 100; i++) { cpuprofile.samples.push(i % 10 < 8 ? 3 : 4); cpuprofile.timeDeltas.push(1000); }
fs.writeFileSync(path.join(tmp, 'app.cpuprofile'), JSON.stringify(cpuprofile));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
try {
  // What the window shows of frame i: its rect and its label (null when not drawn or off screen).
  async function onScreen(page, i) {
    return page.evaluate((i) => {
      const head = document.getElementById('header').getBoundingClientRect().bottom;
      const foot = document.getElementById('footer').firstElementChild.getBoundingClientRect().top;
      const vis = (el) => {
        if (!el) return null;
        const b = el.getBoundingClientRect();
        return b.top >= head - 1 && b.bottom <= Math.min(foot, innerHeight) + 1 && b.left >= 0 && b.right <= innerWidth + 1 && b.height > 0;
      };
      const rect = document.querySelector(`#frames rect[data-i="${i}"]`);
      const label = document.querySelector(`#labels text[data-i="${i}"]`);
      return { rect: vis(rect), label: vis(label) ? label.textContent : null };
    }, i);
  }
  // frames by name prefix with their value, from the API (the data)
  const hottest = (page, re) => page.evaluate((src) => {
    const re = new RegExp(src);
    let best = -1, bestV = -1;
    for (let i = 0; i < window.nodescope.count; i++) {
      const t = window.nodescope.tooltip(i), m = re.exec(t);
      if (!m) continue;
      const v = parseFloat(/, ([\d.]+)%\)$/.exec(t)[1]);
      if (v > bestV) { bestV = v; best = i; }
    }
    return best;
  }, re.source);

  async function open(args, file, name) {
    const svg = path.join(tmp, name + '.svg');
    execFileSync(ns, ['flame', '-q', ...args, path.join(tmp, file), '-o', svg]);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('file://' + svg);
    await page.waitForSelector('svg[data-ready="1"]');
    await page.waitForTimeout(100);
    const png = path.join(tmp, name + '.png');
    await page.screenshot({ path: png });
    if (shots) fs.copyFileSync(png, path.join(shots, name + '.png'));
    return { page, errors };
  }

  // the flame graph: 127-deep towers folded, opened at the base
  {
    const { page, errors } = await open([], 'deep.folded', 'flame');
    // taller than the window (the capture has 108-deep stacks), yet opened at its base
    assert.ok(await page.evaluate(() => window.scrollY) > 0, 'not scrolled to the base');
    const root = await onScreen(page, 0);
    assert.deepEqual(root, { rect: true, label: 'all' }, 'root not on the first screen');
    const kids = await page.evaluate(() => [...document.querySelectorAll('#frames rect.f')].map((r) => +r.dataset.i)
      .filter((i) => i > 0 && window.nodescope.frameAt !== undefined));
    let shownKids = 0;
    for (const i of kids.slice(0, 40)) {
      const t = await page.evaluate((i) => window.nodescope.tooltip(i), i);
      if (!/^node\b/.test(t)) continue;
      assert.ok((await onScreen(page, i)).rect, 'root child not on screen: ' + t);
      shownKids++;
    }
    assert.ok(shownKids >= 1, 'no child of the root drawn');
    const hot = await hottest(page, /^JS:/);
    const js = await onScreen(page, hot);
    assert.ok(js.rect, 'hottest JS frame not on the first screen');
    assert.ok(js.label && js.label.includes('parseRecords'), 'hottest JS label not readable: ' + js.label);
    // the [unknown] runs are one frame
    const unk = await page.evaluate(() => {
      for (let i = 0; i < window.nodescope.count; i++) { const t = window.nodescope.tooltip(i); if (t.startsWith('[unknown] \u00d7')) return t; }
      return '';
    });
    assert.match(unk, /^\[unknown\] ×\d+(–\d+)? \(/, 'no folded [unknown] frame');
    // labels use the width: few are cut to nothing but "v8.."
    const labels = await page.$$eval('#labels text', (ts) => ts.map((t) => t.textContent));
    const stubs = labels.filter((t) => /^.{1,3}\.\.$/.test(t));
    assert.ok(labels.some((t) => t === 'BuildJsonObject' || t === 'SlowFlatten' || /^(v8::internal::)?JsonParser::ParseJsonValue$/.test(t)), 'no short C++ label: ' + labels.join(' | '));
    assert.ok(labels.every((t) => !/^v8\.\.$/.test(t)), 'labels cut to v8..');
    assert.ok(stubs.length * 2 < labels.length, 'most labels are stubs: ' + stubs.join(' '));
    // hover a frame: the details line is on screen with the name and the share
    const box = await page.locator(`#frames rect[data-i="${hot}"]`).boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    assert.match(await page.textContent('#details'), /^Function: JS:\*parseRecords .* \([\d,.]+ (samples|ns|[µm]?s), [\d.]+%\)$/);
    const details = await page.evaluate(() => document.getElementById('details').getBoundingClientRect().bottom);
    assert.ok(details <= 900, 'details line below the window');
    assert.deepEqual(errors, []);
    await page.close();
  }

  // icicle: root at the top, nothing to scroll
  {
    const { page, errors } = await open(['--inverted'], 'deep.folded', 'icicle');
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    assert.deepEqual(await onScreen(page, 0), { rect: true, label: 'all' });
    const js = await onScreen(page, await hottest(page, /^JS:/));
    assert.ok(js.label && js.label.includes('parseRecords'), 'icicle: hottest JS label: ' + js.label);
    assert.deepEqual(errors, []);
    await page.close();
  }

  // reversed: leaf functions at the base
  {
    const { page, errors } = await open(['--reverse'], 'deep.folded', 'reverse');
    assert.deepEqual(await onScreen(page, 0), { rect: true, label: 'all' });
    const labels = await page.$$eval('#labels text', (ts) => ts.map((t) => t.textContent));
    assert.ok(labels.length > 10, 'reverse: labels ' + labels.length);
    assert.deepEqual(errors, []);
    await page.close();
  }

  // flame chart of the perf capture: time along x
  {
    fs.copyFileSync('examples/node-perf.txt', path.join(tmp, 'perf.txt'));
    const { page, errors } = await open(['--flamechart', '--no-resolve'], 'perf.txt', 'chart');
    assert.deepEqual(await onScreen(page, 0), { rect: true, label: 'all' });
    const labels = await page.$$eval('#labels text', (ts) => ts.map((t) => t.textContent));
    assert.ok(labels.length > 20 && labels.includes('node::Start'), 'chart labels: ' + labels.join(' | '));
    // parseRecords runs along the timeline (each shorter than a label): drawn on the first screen
    const runs = await page.evaluate(() => [...document.querySelectorAll('#frames rect.f')].map((r) => +r.dataset.i)
      .filter((i) => window.nodescope.tooltip(i).startsWith('JS:*parseRecords')));
    assert.ok(runs.length > 2, 'chart: parseRecords runs drawn: ' + runs.length);
    assert.ok((await onScreen(page, runs[0])).rect, 'chart: parseRecords not on the first screen');
    assert.deepEqual(errors, []);
    await page.close();
  }

  // cpuprofile frames (url and line fields): the label drops the directories
  {
    const { page, errors } = await open(['--width', '500'], 'app.cpuprofile', 'cpuprofile');
    const labels = await page.$$eval('#labels text', (ts) => ts.map((t) => t.textContent));
    assert.ok(labels.includes('computeEverythingSlowly compute.js:42') || labels.includes('computeEverythingSlowly'), 'cpuprofile labels: ' + labels.join(' | '));
    const i = await page.evaluate(() => { for (let i = 0; i < window.nodescope.count; i++) if (window.nodescope.tooltip(i).startsWith('computeEverythingSlowly')) return i; return -1; });
    assert.match(await page.evaluate((i) => window.nodescope.tooltip(i), i), /^computeEverythingSlowly file:\/\/\/home\/someone\/projects\/app\/src\/server\/lib\/compute\.js:42:3 \(/);
    assert.deepEqual(errors, []);
    await page.close();
  }
  console.log('PASS');
} finally {
  await browser.close();
}
