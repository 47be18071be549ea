// An express 4 server for bench/express_accuracy.sh: a few middlewares and a route that does
// some JSON work per request, so the time is spread over express's router (inlined by TurboFan
// under load) and the handler. Listens on 127.0.0.1:PORT (argv[2]); exits 0 on SIGINT/SIGTERM
// (so node --cpu-prof writes its profile).
const express = require(process.env.EXPRESS || 'express');
const app = express();
app.use((req, res, next) => { req.started = process.hrtime.bigint(); next(); });
app.use(express.json());
app.use((req, res, next) => { res.set('x-bench', '1'); next(); });
const items = Array.from({ length: 200 }, (_, i) => ({ id: i, name: 'item' + i, tags: ['a', 'b', String(i % 7)] }));
function score(item, q) { let s = 0; for (const t of item.tags) s += t.charCodeAt(0) * (q.length + 1); return s + item.id; }
function search(q) { return items.map(it => ({ ...it, score: score(it, q) })).sort((a, b) => b.score - a.score).slice(0, 20); }
app.get('/items/:q', (req, res) => { res.json({ q: req.params.q, results: search(req.params.q) }); });
const server = app.listen(Number(process.argv[2] || 3000), '127.0.0.1', () => console.log('listening'));
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => server.close(() => process.exit(0)));
