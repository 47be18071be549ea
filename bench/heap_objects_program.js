// The program for bench/heap_objects.sh: ~3.5 million live objects (~1 GB heap) of a few kinds,
// then "ready" on argv[3] and a block on the FIFO argv[2].
'use strict';
const fs = require('fs');
class Session { constructor(i) { this.id = i; this.user = 'u' + (i % 1000); this.hits = i % 97; } }
function Point(x, y) { this.x = x; this.y = y; }
const keep = [];
for (let i = 0; i < 1500000; i++) keep.push(new Session(i));
for (let i = 0; i < 1500000; i++) keep.push(new Point(i, i * 0.5));
for (let i = 0; i < 500000; i++) keep.push({ k: i, v: 'x' + i, pad: new Array(8).fill(i) });
globalThis.keep = keep;
fs.writeFileSync(process.argv[3], 'ready');
fs.readFileSync(process.argv[2]);
