// The program for bench/heap_retainers.sh: bench/heap_objects_program.js's heap (~3.5 million
// objects, ~1 GB) plus one planted leak (globalThis.app.registry Map -> "s17" -> LeakedSession);
// "ready" on argv[3], a block on the FIFO argv[2] (the core is taken then); afterwards it writes
// its own v8.writeHeapSnapshot() of the same heap to argv[4] and its time and peak RSS to argv[5].
'use strict';
const fs = require('fs');
const v8 = require('v8');
class Session { constructor(i) { this.id = i; this.user = 'u' + (i % 1000); this.hits = i % 97; } }
class LeakedSession { constructor() { this.big = new Array(1000).fill(7); } }
function Point(x, y) { this.x = x; this.y = y; }
const keep = [];
for (let i = 0; i < 1500000; i++) keep.push(new Session(i));
for (let i = 0; i < 1500000; i++) keep.push(new Point(i, i * 0.5));
for (let i = 0; i < 500000; i++) keep.push({ k: i, v: 'x' + i, pad: new Array(8).fill(i) });
globalThis.keep = keep;
globalThis.app = { registry: new Map() };
for (let i = 0; i < 100; i++) app.registry.set('s' + i, i === 17 ? new LeakedSession() : { i });
fs.writeFileSync(process.argv[3], 'ready');
fs.readFileSync(process.argv[2]);
const before = process.resourceUsage().maxRSS, t0 = process.hrtime.bigint();
v8.writeHeapSnapshot(process.argv[4]);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
fs.writeFileSync(process.argv[5], JSON.stringify({ seconds: secs, maxRSS_KB_before: before, maxRSS_KB_after: process.resourceUsage().maxRSS }));
