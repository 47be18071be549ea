// The program bench/snapshot_cow.sh snapshots: about MB megabytes of JS heap in small objects
// (arrays of 16,384 {id, score, tag} records a MB, held from globalThis: what a heap snapshot pays
// per object) that it keeps writing (a few thousand random records a millisecond, anywhere in
// the heap: the worst case for copy-on-write, every page written while the copy is read).
// SIGUSR1: v8.writeHeapSnapshot() into DIR, then prints "writeHeapSnapshot MS RSS_BEFORE_MB
// PEAK_MB". Usage: node --max-old-space-size=8192 snapshot_cow_program.js READY_FILE MB DIR
'use strict';
const fs = require('fs');
const v8 = require('v8');
const [ready, mb, dir] = [process.argv[2], +process.argv[3], process.argv[4]];
const arrays = [];
class Rec { constructor(k) { this.id = k; this.score = k + 0.5; this.tag = 'r' + (k % 1000); } }
for (let i = 0; i < mb; i++) arrays.push(Array.from({ length: 16 * 1024 }, (_, k) => new Rec(k)));   // ~1 MB each
globalThis.arrays = arrays;
let n = 0;
setInterval(() => {
  for (let k = 0; k < 4000; k++) { const a = arrays[(Math.random() * arrays.length) | 0]; a[(Math.random() * a.length) | 0].score = n++ + 0.5; }
}, 1);
const status = (key) => +fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(key + ':\\s+(\\d+)'))[1] >> 10;
process.on('SIGUSR1', () => {
  const before = status('VmRSS'), t = performance.now();
  const file = v8.writeHeapSnapshot(dir + '/p.heapsnapshot');
  const ms = performance.now() - t;
  fs.unlinkSync(file);
  process.stdout.write(`writeHeapSnapshot ${ms.toFixed(0)} ${before} ${status('VmHWM')}\n`);
});
fs.writeFileSync(ready, String(process.pid));
