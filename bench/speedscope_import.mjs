// Times speedscope's own importer on one profile: its npm build (index.html) in headless
// Debian chromium, the profile fetched by speedscope from a local HTTP server (#profileURL=), timed from navigation
// until speedscope has imported it and titled the page with it. Prints "SECONDS PEAK_RSS_KB"
// (peak RSS = the largest VmHWM among chromium's renderer processes). speedscope ships only
// a browser build, so this is how its importer runs. Used by bench/cpuprofile.sh.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// playwright-core is installed for the tests (tests/package.json)
const { chromium } = createRequire(path.resolve(here, '../tests/package.json'))('playwright-core');
const dist = path.resolve(here, '../tests/node_modules/speedscope/dist/release');
const file = path.resolve(process.argv[2]);
// speedscope and the profile from one local HTTP server (same origin: speedscope fetches the
// profile itself, as it does for #profileURL= links)
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png' };
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url.split('?')[0]);
  const p = url === '/profile' ? file : path.join(dist, path.normalize(url));
  if (!p.startsWith(dist) && p !== file) return res.writeHead(404).end();
  fs.stat(p, (err, st) => {
    if (err || !st.isFile()) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': types[path.extname(p)] || 'application/octet-stream', 'Content-Length': st.size });
    fs.createReadStream(p).pipe(res);
  });
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const page = await browser.newPage();
const t0 = process.hrtime.bigint();
await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(base + '/profile')}`);
await page.waitForFunction(() => document.title.endsWith(' - speedscope'), null, { timeout: 600000, polling: 50 });
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
// the renderers' peak resident memory
let peak = 0;
for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmd.includes('chromium') || !cmd.includes('--type=renderer')) continue;
    const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (hwm) peak = Math.max(peak, Number(hwm[1]));
  } catch { /* gone */ }
}
await browser.close();
server.close();
console.log(`${seconds.toFixed(2)} ${peak}`);
