// bench/record_events.sh's write-heavy server: an HTTP server that appends a log line (fs.writeSync)
// for each request, and its own client in a second process (keep-alive, CONCURRENCY requests at a
// time) that runs for SECONDS and prints "REQS requests/s". Usage:
//   node record_events_server.js server LOG PORTFILE      (prints nothing; ends on SIGTERM)
//   node record_events_server.js client PORT SECONDS [CONCURRENCY]
'use strict';
const http = require('http');
const fs = require('fs');
const [mode, a, b, c] = process.argv.slice(2);

if (mode === 'server') {
  const fd = fs.openSync(a, 'w');
  function logRequest(req) {
    fs.writeSync(fd, JSON.stringify({ t: Date.now(), url: req.url, ua: req.headers['user-agent'] }) + '\n');
  }
  const server = http.createServer((req, res) => {
    logRequest(req);
    res.end('ok\n');
  });
  server.listen(0, '127.0.0.1', () => fs.writeFileSync(b, String(server.address().port)));
  process.on('SIGTERM', () => { server.close(); fs.closeSync(fd); process.exit(0); });
} else {
  const port = Number(a), seconds = Number(b), conc = Number(c || 8);
  const agent = new http.Agent({ keepAlive: true, maxSockets: conc });
  const end = Date.now() + seconds * 1000;
  let done = 0;
  function one() {
    if (Date.now() >= end) return;
    http.get({ host: '127.0.0.1', port, path: '/x', agent }, (res) => {
      res.resume();
      res.on('end', () => { done++; one(); });
    });
  }
  for (let i = 0; i < conc; i++) one();
  setTimeout(() => { console.log(`${Math.round(done / seconds)} requests/s`); agent.destroy(); }, seconds * 1000 + 200);
}
