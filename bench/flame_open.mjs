// Time to interactive of flame graph SVGs in headless Chromium: from navigation to
// the first hover answered (the details line names the frame), best of N openings.
// Usage: node bench/flame_open.mjs RUNS NAME=FILE.svg ...   (prints "NAME ms load_ms")
import { createRequire } from 'node:module';
import path from 'node:path';
const require = createRequire(path.resolve('tests/package.json'));
const { chromium } = require('playwright-core');

const [runs, ...files] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
try {
  for (const spec of files) {
    const [name, file] = spec.split('=');
    let best = Infinity, bestLoad = Infinity;
    for (let r = 0; r < +runs; r++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const t0 = Date.now();
      await page.goto('file://' + path.resolve(file), { waitUntil: 'load', timeout: 300000 });
      const load = Date.now() - t0;
      // the widest frame (the root), wherever it is: scrolled into view and hovered
      await page.evaluate(() => {
        let best = null, bw = -1;
        for (const r of document.querySelectorAll('#frames rect')) { const w = +r.getAttribute('width'); if (w > bw) { bw = w; best = r; } }
        best.setAttribute('data-bench', '1');
      });
      await page.hover('[data-bench]', { timeout: 300000 });
      await page.waitForFunction(() => /\S/.test(document.getElementById('details').textContent), null, { timeout: 300000, polling: 10 });
      const ms = Date.now() - t0;
      best = Math.min(best, ms);
      bestLoad = Math.min(bestLoad, load);
      await page.close();
    }
    console.log(name, best, bestLoad);
  }
} finally {
  await browser.close();
}
