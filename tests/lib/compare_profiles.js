// How close profiles come to V8's own: V8's top 15 functions by inclusive share in V8's profile
// against each LABEL=FILE profile that follows (nodescope's live sampler, its --perf path, all
// threads merged, or another V8 profile). Used by tests/e2e/record_accuracy.sh and
// bench/threads_accuracy.sh, bench/express_accuracy.sh.
//   node compare_profiles.js [--same-run] [--window START END] [--max POINTS] V8.cpuprofile LABEL=FILE...
// --window: only the samples taken from START to END (microseconds, the profiles' clock) count.
// --max: exit 1 when a profile's worst difference over V8's top 15 by inclusive share is more.
// Shares are over the busy time: samples with a JavaScript frame on the stack. Left out of every
// profile alike: GC samples, and samples without any JS frame — V8 files the latter under (idle)
// or (program) whatever the thread was doing (Node marks its whole event-loop poll phase idle for
// V8's profiler, native HTTP parsing included), while a native sampler sees them as the native
// work they are; counting them in one denominator and not the other shifts every share.
const fs = require('fs');
const GC = /^(\(garbage collector\)|v8::internal::(Heap::|Scavenge|ScavengerCollector|MarkCompact|MinorMarkCompact|ConcurrentMarking|IncrementalMarking|Sweeper|GCTracer|MarkingVisitor))/;
const SKIP = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);
// the event loop waiting: V8's (idle), nodescope record --wall's leaf under uv__io_poll
const IDLE = new Set(['(idle)', '(wait: epoll)']);
// window: [start, end] in the profiles' microseconds (CLOCK_MONOTONIC in both V8's and
// nodescope's): only the samples taken in it count.
function shares(file, completeOnly, window) {
  const p = JSON.parse(fs.readFileSync(file));
  const times = []; let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) { t += (p.timeDeltas || [])[i] || 0; times.push(t); }
  const byId = new Map(p.nodes.map(n => [n.id, n])), parent = new Map();
  for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const key = n => n.callFrame.functionName + ' ' + n.callFrame.url.replace(/^file:\/\//, '') + ':' + (n.callFrame.lineNumber + 1);
  const memo = new Map();   // node -> [keys on its path, gc on path]
  const path = id => {
    if (memo.has(id)) return memo.get(id);
    const n = byId.get(id), up = parent.has(id) ? path(parent.get(id)) : [new Set(), false, false, false];
    const keys = new Set(up[0]); if (!SKIP.has(n.callFrame.functionName)) keys.add(key(n));
    const r = [keys, up[1] || GC.test(n.callFrame.functionName), up[2] || IDLE.has(n.callFrame.functionName),
               up[3] || n.callFrame.functionName === 'node::Start'];
    memo.set(id, r); return r;
  };
  const hasJs = new Map();   // node -> a JS frame on its path (a frame with a url)
  const js = id => {
    if (hasJs.has(id)) return hasJs.get(id);
    const r = byId.get(id).callFrame.url !== '' || (parent.has(id) && js(parent.get(id)));
    hasJs.set(id, r); return r;
  };
  const incl = new Map(), self = new Map(); let total = 0, gc = 0, idle = 0, native = 0, outside = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const s = p.samples[i];
    if (window && (times[i] < window[0] || times[i] > window[1])) { outside++; continue; }
    const [keys, isGc, isIdle, complete] = path(s);
    if (completeOnly && !complete) continue;
    if (isGc) { gc++; continue; }
    if (isIdle) { idle++; continue; }
    if (!js(s)) { native++; continue; }
    total++;
    for (const k of keys) incl.set(k, (incl.get(k) || 0) + 1);
    const leaf = byId.get(s);
    if (!SKIP.has(leaf.callFrame.functionName)) self.set(key(leaf), (self.get(key(leaf)) || 0) + 1);
  }
  return { incl, self, total, gc, idle, native, outside, samples: p.samples.length };
}
// argv: V8's profile, then LABEL=FILE for each profile compared with it.
// argv: [--same-run] V8's profile, then LABEL=FILE for each profile compared with it. With
// --same-run, the profiles were taken of the same process: only the samples in the window both
// cover count, in each (V8's profiler starts with the process and a sampler attaches a moment
// later; V8 stops before it writes its file, which a sampler still sees).
const args = process.argv.slice(2);
let sameRun = false, max = Infinity, only = null;
for (;;) {
  if (args[0] === '--same-run') { sameRun = true; args.shift(); }
  else if (args[0] === '--max') { max = Number(args[1]); args.splice(0, 2); }
  else if (args[0] === '--window') { only = [Number(args[1]), Number(args[2])]; args.splice(0, 3); }
  else break;
}
const span = f => { const p = JSON.parse(fs.readFileSync(f)); return [p.startTime, p.endTime]; };
let window = null;
if (sameRun) {
  window = span(args[0]);
  for (const a of args.slice(1)) {
    const w = span(a.slice(a.indexOf('=') + 1));
    window = [Math.max(window[0], w[0]), Math.min(window[1], w[1])];
  }
}
if (only) window = window ? [Math.max(window[0], only[0]), Math.min(window[1], only[1])] : only;
const v8 = shares(args[0], false, window);
const cols = args.slice(1).map(a => { const i = a.indexOf('='); return { label: a.slice(0, i), s: shares(a.slice(i + 1), false, window) }; });
const pct = (s, k) => 100 * (s.incl.get(k) || 0) / s.total;
const left = s => `${s.samples} (${s.outside} outside the window; left out: ${s.gc} GC, ${s.idle} idle, ${s.native} without a JS frame)`;
if (window) console.log(`the window both profiles cover: ${((window[1] - window[0]) / 1e6).toFixed(2)} s`);
console.log(`samples: V8 --cpu-prof ${left(v8)}; ` + cols.map(c => `${c.label} ${left(c.s)}`).join('; '));
let worstIncl = [];
for (const by of ['incl', 'self']) {
  const top = [...v8[by]].sort((a, b) => b[1] - a[1]).slice(0, 15).map(e => e[0]);
  console.log(`\nV8's top 15 by ${by === 'incl' ? 'inclusive' : 'self'} share; inclusive shares:`);
  console.log('   V8%' + cols.map(c => c.label.padStart(Math.max(8, c.label.length + 2))).join('') + '  function');
  const worst = cols.map(() => 0);
  for (const k of top) {
    const a = pct(v8, k);
    const row = cols.map((c, i) => { const b = pct(c.s, k); worst[i] = Math.max(worst[i], Math.abs(a - b));
                                     return b.toFixed(1).padStart(Math.max(8, c.label.length + 2)); });
    console.log(`${a.toFixed(1).padStart(6)}${row.join('')}  ${k.slice(0, 80)}`);
  }
  console.log(`worst inclusive-share difference from V8 over these 15: ` +
              cols.map((c, i) => `${c.label} ${worst[i].toFixed(1)} points`).join(', '));
  if (by === 'incl') worstIncl = worst;
}
const over = cols.filter((c, i) => worstIncl[i] > max);
if (over.length) {
  console.error(`FAIL: more than ${max} points from V8 over its top 15 by inclusive share: ` + over.map(c => c.label).join(', '));
  process.exit(1);
}
