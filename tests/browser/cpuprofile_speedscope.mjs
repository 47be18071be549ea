// The .cpuprofile (and pprof) files nodescope writes, opened by speedscope's real importer in
// headless Chromium (the npm package's own build: dist/release/index.html, loaded the way its
// command line does, then saved back with Ctrl+S as speedscope JSON). What speedscope reads
// from nodescope's file must equal what it reads from the truth:
//  - a round trip of a real `node --cpu-prof` profile: the same self time per function
//    (name, file, line, column) as speedscope reads from node's own file, to the microsecond;
//  - a cpuprofile made from folded stacks: the same self share per function as speedscope's
//    reading of the folded file itself;
//  - a cpuprofile made from a perf script of node: speedscope reads its whole timeline, and the
//    JavaScript frames with their files and lines;
//  - pprof (gzip protobuf): the same self share per function as the original cpuprofile;
//  - trace events from a perf script of node's threads (--thread all): one profile per thread,
//    named by its role, each with its thread's samples.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const tmp = process.env.TEST_TMP || fs.mkdtempSync('/tmp/speedscope-');
const ns = process.env.NODESCOPE || path.join(root, 'build/tst/nodescope');
const speedscope = path.join(root, 'tests/node_modules/speedscope/dist/release/index.html');
if (!fs.existsSync(speedscope)) {
  console.log('skip: speedscope is not installed in tests/node_modules (run scripts/setup.sh)');
  process.exit(77);
}
const node = ['22', '20'].map((m) => path.join(root, `tests/.cache/node/${m}/bin/node`)).find(fs.existsSync) || process.execPath;
const f = (name) => path.join(tmp, name);
const run = (...args) => execFileSync(ns, args, { stdio: ['ignore', 'pipe', 'inherit'] });

execFileSync(node, ['--cpu-prof', '--cpu-prof-dir', tmp, '--cpu-prof-name', 'real.cpuprofile',
  path.join(root, 'tests/fixtures/cpuprofile/workload.js'), '400'], { stdio: 'ignore' });
run('convert', f('real.cpuprofile'), '-o', f('roundtrip.cpuprofile'));
run('convert', f('real.cpuprofile'), '-o', f('real.folded'));
run('convert', f('real.folded'), '-o', f('from-folded.cpuprofile'));
run('convert', f('real.cpuprofile'), '-o', f('real.pb.gz'));
const perf = path.join(root, 'examples/node-perf.txt');
fs.copyFileSync(perf, f('node.perf.txt'));
run('convert', f('node.perf.txt'), '-o', f('from-perf.cpuprofile'));
// node's threads under perf, two samples each (speedscope 1.25 cannot open a one-sample profile)
const event = (comm, tid, t) => `${comm} 900/${tid} [000] 10.${String(t).padStart(6, '0')}: 1001001 cpu-clock:ppp: \n`;
const threadStacks = {
  900: ['node', '\t7f00 JS:*hot /app/a.js:1:1 (/tmp/perf-900.map)\n\t55a0 node::Start+0x10 (/usr/bin/node)\n'],
  903: ['node', '\t55b0 v8::internal::compiler::PipelineImpl::OptimizeGraph+0x1 (/usr/bin/node)\n\t55b8 node::(anonymous namespace)::PlatformWorkerThread+0x3 (/usr/bin/node)\n'],
  904: ['node', '\t55c0 v8::internal::ScavengerCollector::JobTask::Run+0x1 (/usr/bin/node)\n\t55b8 node::(anonymous namespace)::PlatformWorkerThread+0x3 (/usr/bin/node)\n'],
  910: ['node', '\t7f10 JS:*work /app/w.js:2:1 (/tmp/perf-900.map)\n\t55d0 node::worker::Worker::Run+0x9 (/usr/bin/node)\n'],
  920: ['libuv-worker', '\t7fb0 sha512_block_data_order_avx2+0x5 (/usr/lib/libcrypto.so.3)\n\t7fa8 worker+0x5 (/usr/bin/node)\n'],
};
let threadText = '', clock = 100;
for (let round = 0; round < 2; round++)
  for (const [tid, [comm, stack]] of Object.entries(threadStacks)) threadText += event(comm, tid, clock += 1000) + stack + '\n';
fs.writeFileSync(f('threads.perf.txt'), threadText);
run('convert', '--no-resolve', f('threads.perf.txt'), '--thread', 'all', '-o', f('threads.json'));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});

// speedscope's reading of a file: its exported JSON (the importer's result, nothing of ours)
async function speedscopeRead(file) {
  const page = await browser.newPage({ acceptDownloads: true });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const loader = f(path.basename(file) + '.load.js');
  fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);
  await page.goto('file://' + speedscope + '#localProfilePath=' + loader);
  await page.waitForFunction(() => document.title.endsWith(' - speedscope'), null, { timeout: 30000 });
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30000 }), page.keyboard.press('Control+s')]);
  const data = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  await page.close();
  assert.deepEqual(errors, [], `speedscope page errors on ${file}`);
  return data;
}

// self weight per frame key, and the total, from a speedscope JSON document
function selfWeights(data, keyOf) {
  const frames = data.shared.frames, self = new Map();
  let total = 0, samples = 0;
  const add = (frame, w) => { const k = keyOf(frames[frame]); self.set(k, (self.get(k) || 0) + w); total += w; };
  for (const p of data.profiles) {
    if (p.type === 'sampled') {
      p.samples.forEach((stack, i) => { samples++; if (stack.length) add(stack[stack.length - 1], p.weights[i]); });
    } else {   // evented: the frame on top of the stack owns the time until the next event
      const stack = [];
      let last = p.startValue;
      for (const e of p.events) {
        if (stack.length) add(stack[stack.length - 1], e.at - last);
        last = e.at;
        if (e.type === 'O') stack.push(e.frame);
        else stack.pop();
      }
    }
  }
  return { self, total, samples };
}
const fullKey = (fr) => [fr.name, fr.file || '', fr.line ?? '', fr.col ?? ''].join('|');
const nameKey = (fr) => fr.name;

function sameShares(a, b, what, tolerance = 1e-9) {
  const keys = new Set([...a.self.keys(), ...b.self.keys()]);
  for (const k of keys) {
    const x = (a.self.get(k) || 0) / a.total, y = (b.self.get(k) || 0) / b.total;
    assert.ok(Math.abs(x - y) <= tolerance, `${what}: ${k}: ${x} vs ${y}`);
  }
}

try {
  const real = await speedscopeRead(f('real.cpuprofile'));
  const rt = await speedscopeRead(f('roundtrip.cpuprofile'));
  const a = selfWeights(real, fullKey), b = selfWeights(rt, fullKey);
  assert.ok(a.total > 0 && a.self.size > 3, 'speedscope read nothing from node\'s own profile');
  assert.equal(b.total, a.total, 'round trip: total time differs');
  for (const [k, w] of a.self) assert.equal(b.self.get(k), w, `round trip: self time of ${k}`);
  assert.equal(b.self.size, a.self.size, 'round trip: different functions');
  console.log(`round trip: ${a.self.size} functions, ${a.total} µs, identical in speedscope`);

  const folded = selfWeights(await speedscopeRead(f('real.folded')), nameKey);
  const ff = selfWeights(await speedscopeRead(f('from-folded.cpuprofile')), nameKey);
  assert.ok(folded.total > 0, 'speedscope read nothing from the folded file');
  // speedscope's Chrome importer gives the final run of identical samples no time (it ignores
  // endTime), for node's own profiles too: allow exactly that run's share
  const ffp = JSON.parse(fs.readFileSync(f('from-folded.cpuprofile'), 'utf8'));
  let run = 1;
  while (run < ffp.samples.length && ffp.samples[ffp.samples.length - 1 - run] === ffp.samples.at(-1)) run++;
  sameShares(folded, ff, 'from folded', (run + 1) / ffp.samples.length);
  assert.ok(ff.total / 1000 >= ffp.samples.length - run - 1 && ff.total / 1000 <= ffp.samples.length, `from folded: ${ff.total / 1000} ms in speedscope for ${ffp.samples.length} samples`);
  console.log(`from folded: ${ff.self.size} functions, shares equal`);

  // from perf: speedscope reads the whole timeline and the JavaScript frames with their files
  const fpRead = await speedscopeRead(f('from-perf.cpuprofile'));
  const fp = selfWeights(fpRead, nameKey);
  const ours = JSON.parse(fs.readFileSync(f('from-perf.cpuprofile'), 'utf8'));
  const span = ours.timeDeltas.slice(1).reduce((x, y) => x + y, 0);
  assert.ok(ours.samples.length > 100, 'few samples from the perf script');
  assert.ok(fp.total <= span && fp.total >= 0.9 * span, `from perf: speedscope reads ${fp.total} µs of a ${span} µs timeline`);
  const jsFrames = fpRead.shared.frames.filter((fr) => fr.file && /\.js$/.test(fr.file) && fr.line > 0);
  assert.ok(jsFrames.length > 0, 'from perf: no JavaScript frame with a file and line in speedscope');
  console.log(`from perf: ${ours.samples.length} samples, ${fp.total} of ${span} µs in speedscope, ${jsFrames.length} JS frames with positions`);

  // pprof: speedscope weighs by the profile's sample value; the truth is node's own profile,
  // counted from its JSON: samples per function (leaf node's name)
  const pprofRead = await speedscopeRead(f('real.pb.gz'));
  const pprof = selfWeights(pprofRead, nameKey);
  const rp = JSON.parse(fs.readFileSync(f('real.cpuprofile'), 'utf8'));
  const byId = new Map(rp.nodes.map((n) => [n.id, n]));
  const counted = { self: new Map(), total: rp.samples.length };
  for (const id of rp.samples) {
    const nm = byId.get(id).callFrame.functionName || '(anonymous)';
    counted.self.set(nm, (counted.self.get(nm) || 0) + 1);
  }
  sameShares(counted, pprof, 'pprof', 1e-6);
  console.log(`pprof: ${pprof.self.size} functions, shares equal to the cpuprofile's`);

  // trace events: speedscope shows each thread's profile apart, under the thread's name
  const trace = JSON.parse(fs.readFileSync(f('threads.json'), 'utf8')).traceEvents;
  const chunks = trace.filter((e) => e.name === 'ProfileChunk');
  const threadsRead = await speedscopeRead(f('threads.json'));
  assert.equal(threadsRead.profiles.length, chunks.length, 'trace events: one speedscope profile per thread');
  // speedscope names each profile "FILE - THREAD NAME"
  const labels = chunks.map((c) => trace.find((e) => e.name === 'thread_name' && e.pid === c.pid && e.tid === c.tid).args.name);
  assert.deepEqual(threadsRead.profiles.map((pr) => pr.name.replace(/^.* - /, '')).sort(), labels.slice().sort(),
    'trace events: speedscope profiles named after the threads');
  assert.deepEqual([...new Set(labels)].sort(), ['node [V8 worker]', 'node [Worker 1]', 'node [libuv]', 'node [main]'],
    'trace events: the threads\' roles');
  // each thread's own frames: the JS function of the main thread and the Worker, libuv's hashing
  const framesOf = (label) => {
    const pr = threadsRead.profiles.find((x) => x.name.endsWith(' - ' + label));
    const ids = pr.type === 'sampled' ? pr.samples.flat() : pr.events.map((e) => e.frame);
    return new Set(ids.map((i) => threadsRead.shared.frames[i].name));
  };
  assert.ok(framesOf('node [main]').has('hot') && !framesOf('node [main]').has('work'), 'trace events: the main thread\'s frames');
  assert.ok(framesOf('node [Worker 1]').has('work') && !framesOf('node [Worker 1]').has('hot'), 'trace events: the Worker\'s frames');
  assert.ok(framesOf('node [libuv]').has('sha512_block_data_order_avx2'), 'trace events: the libuv pool\'s frames');
  console.log(`trace events: ${chunks.length} threads, each its own profile in speedscope`);
} finally {
  await browser.close();
}
console.log('ok');
