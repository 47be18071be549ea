// A server holding N suspended requests (default 100,000): each request is an async chain
// router -> handle -> getUser stuck at `await pool.query()` that never settles, plus per-request
// timers and a few sockets, like a hung HTTP server. Writes argv[3] when ready, then blocks on the
// FIFO argv[2]. Usage: node async_pending_program.js FIFO READY [N]
'use strict';
const fs = require('fs');
const net = require('net');
const [fifo, ready, nArg] = process.argv.slice(2);
const N = +(nArg || 100000);
// the pool's wait queue keeps each query's resolver, as a real connection pool does (an unreferenced
// never-settling promise and its awaiters would simply be garbage)
const pool = { waiting: [], query() { return new Promise((resolve) => this.waiting.push(resolve)); } };
async function getUser(req) { const rows = await pool.query('select', req.id); return rows[0]; }
async function handle(req) { req.user = await getUser(req); return req; }
async function router(req) { return await handle(req); }
function onRequestTimeout() {}
const held = [];
for (let i = 0; i < N; i++) {
  const req = { id: i, url: `/users/${i}`, headers: { host: 'x' }, body: 'x'.repeat(64 + (i % 512)) };
  router(req);
  if (i % 10 === 0) held.push(setTimeout(onRequestTimeout, 60000 + i).unref());
}
const server = net.createServer(() => {}).listen(0, '127.0.0.1', () => {
  for (let i = 0; i < 16; i++) net.connect(server.address().port, '127.0.0.1');
  // block from an immediate, not from a timer callback (Node's uv timer is stopped while one runs)
  setTimeout(() => setImmediate(() => { fs.writeFileSync(ready, String(process.pid)); fs.readFileSync(fifo); }), 500);
});
