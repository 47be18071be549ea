// bench/live_overhead.sh's workloads. `cpu SECONDS`: a CPU-bound JS benchmark (object churn, a
// closure-heavy sort, string building) that prints its throughput, in rounds a second, over all
// but its first second. `http PORT`: a small JSON HTTP server; exits 0 on SIGINT/SIGTERM.
// bench/live_overhead_paired.mjs's: `cpu-stream` runs rounds until killed and `http-stream PORT`
// serves; both print `T COUNT` every 50 ms, T the CLOCK_MONOTONIC time in ms (process.hrtime, as
// the driver's) and COUNT the rounds (responses) done so far, so any window's rate can be read.
const [mode, arg] = process.argv.slice(2);
let done = 0;
function stream() {
  const print = () => process.stdout.write(`${Number(process.hrtime.bigint()) / 1e6} ${done}\n`);
  return print;
}
function round() {
  const items = Array.from({ length: 2000 }, (_, i) => ({ id: i, key: 'k' + ((i * 7919) % 2000), v: Math.sqrt(i) }));
  items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  let s = '';
  for (const it of items) s += it.key.length + it.v.toFixed(2);
  return s.length;
}
if (mode === 'cpu-stream') {
  const print = stream();
  let next = Date.now(), x = 0;
  for (;;) {
    x += round();
    done++;
    if (Date.now() >= next) { print(); next += 50; }
    if (x < 0) break;
  }
} else if (mode === 'http-stream') {
  const http = require('http');
  const print = stream();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ url: req.url, n: round() }), () => done++);
  });
  server.listen(Number(arg), '127.0.0.1', () => { console.log('listening'); setInterval(print, 50); });
} else if (mode === 'cpu') {
  const secs = Number(arg || 5), t0 = Date.now(), warm = t0 + 1000, end = t0 + secs * 1000;
  let n = 0, x = 0, started = 0;
  for (let now = Date.now(); now < end; now = Date.now()) {
    x += round();
    if (now >= warm) { if (!started) started = now; n++; }
  }
  console.log(`rounds/s ${(n / ((Date.now() - started) / 1000)).toFixed(2)} ${x > 0}`);
} else {
  const http = require('http');
  const server = http.createServer((req, res) => {
    const body = JSON.stringify({ url: req.url, n: round() });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  server.listen(Number(arg), '127.0.0.1', () => console.log('listening'));
  for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => server.close(() => process.exit(0)));
}
