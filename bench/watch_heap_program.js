// bench/watch_heap.sh's target: a heap of about MB megabytes (argv[3]) of small objects,
// strings and arrays held from a module, that then keeps leaking a little (100 objects a
// second) and churning garbage. Writes its pid to argv[2] when the heap is built; on SIGUSR1
// prints the event loop's longest delay since the last SIGUSR1; on SIGUSR2 writes a v8 heap
// snapshot beside it, prints how long it took, and removes it.
'use strict';
const fs = require('fs');
const MB = +(process.argv[3] || 512);
class Record { constructor(i) { this.id = i; this.name = 'record-' + i; this.tags = [i, i + 1]; this.parent = null; } }
class Leaked { constructor(i) { this.i = i; } }
const store = [];
globalThis.store = store;   // held by the program: a module's local nothing captures would be garbage
const used = () => process.memoryUsage().heapUsed;
let i = 0;
while (used() < MB * 1048576) {
  const chunk = new Array(10000);
  for (let k = 0; k < 10000; k++) chunk[k] = new Record(i++);
  store.push(chunk);
}
const leaked = new Map();
let n = 0;
setInterval(() => {
  for (let k = 0; k < 10; k++) leaked.set(n, new Leaked(n++));
  let g = []; for (let k = 0; k < 1000; k++) g.push({ k });
}, 100);
// SIGUSR1: prints the event loop's longest delay since the last SIGUSR1 (perf_hooks, 1 ms
// resolution): how long the program was kept from running, measured from inside
const delay = require('perf_hooks').monitorEventLoopDelay({ resolution: 1 });
delay.enable();
process.on('SIGUSR1', () => { console.log(`delay ${(delay.max / 1e6).toFixed(1)} ms`); delay.reset(); });
// SIGUSR2: the tool people use, from inside: a heap snapshot (the program is stopped all along)
process.on('SIGUSR2', () => {
  const t0 = process.hrtime.bigint(), f = require('v8').writeHeapSnapshot(process.argv[2] + '.heapsnapshot');
  console.log(`snapshot ${Number(process.hrtime.bigint() - t0) / 1e6} ms`);
  fs.unlinkSync(f);
});
fs.writeFileSync(process.argv[2], String(process.pid));
