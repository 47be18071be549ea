// What one sample costs the thread it interrupts, measured in that thread (issue 13: < 0.5% at
// 99 Hz, no worse than `perf record -g` at 999 Hz; "cost of one sample in microseconds").
//
// bench/live_overhead_paired.mjs measures throughput, and on this VM a window's throughput moves
// by +-1.5 points from one to the next however many cycles are run, so a cost of 0.5% cannot be
// seen that way. Here the target measures what was taken from it: its main thread spins in native
// code (bench/sample_cost/gaps.c, called from JS) reading CLOCK_MONOTONIC back to back and records
// every gap of 1 us or more between two reads: time it did not run. Each sampler stamps its samples
// with CLOCK_MONOTONIC (nodescope always; perf with -k mono), and a sample's interrupt runs inside
// one of those gaps. So for each sample the gap around its timestamp is found, and the same is done
// for control instants (each sample's time shifted by a quarter, half and three quarters of the
// sampling period): the gaps the samples hit, less the gaps the control instants hit (the VM's own
// interrupts: ~1,000-2,000 a second here, 20-50 us each), is the time the sampling took from the
// thread. Over the window, that is its cost in percent; over the samples, the cost of one sample.
//
// What this does not see: costs outside the sample's interrupt. For nodescope, the jitter's
// period changes (an IPI to the thread's CPU every 100 ms of its CPU time); for perf -F, the
// kernel's frequency adjustment in the tick. Also printed: every gap's share of the window
// against the target's time outside it (the same run without the tool): the whole effect, noisy.
//
//   node bench/live_sample_cost.mjs [ROUNDS] [WINDOW_SECONDS]     (default 3 rounds of 10 s)
// NODE=path/to/node picks the target's Node (default: this one); NODESCOPE_B=path adds modes b99
// and b999: another nodescope build, taking turns with this one; MODES=live99,perf99 picks modes
// (live99 live999 perf99 perf999 by default; perf ones need perf; perfdwarf99 and perfdwarf999
// are perf copying the user stack as nodescope does, --call-graph dwarf with its 16 KiB: the
// copy's share of a sample's cost). Builds the addon with cc and
// the Node's headers (NODE's ../include/node, else /usr/include/node) into bench/.cache.
// Not a test: run it on a quiet machine.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [roundsArg = '3', windowArg = '10'] = process.argv.slice(2);
const ROUNDS = Number(roundsArg), WINDOW = Number(windowArg), LEAD = 2, TAIL = 2;
if (!(ROUNDS > 0) || !(WINDOW > 0)) {
  console.error('usage: node bench/live_sample_cost.mjs [ROUNDS] [WINDOW_SECONDS]');
  process.exit(2);
}
const NODE = process.env.NODE || process.execPath;
const NS = path.join(ROOT, 'build/nodescope'), NS_B = process.env.NODESCOPE_B;   /* another build, in the same run */
if (!existsSync(NS)) spawnSync('make', ['-j2', 'build/nodescope'], { cwd: ROOT, stdio: 'inherit' });
const havePerf = spawnSync('perf', ['--version']).status === 0;
const known = ['live99', 'live999', 'perf99', 'perf999', 'perfdwarf99', 'perfdwarf999', ...(NS_B ? ['b99', 'b999'] : [])];
const STACK_BYTES = 16384;   /* nodescope's user-stack copy (src/record/live_sampler.c) */
const modes = (process.env.MODES ? process.env.MODES.split(',') : known.slice(0, 4)).filter((m) => known.includes(m) && (havePerf || !m.startsWith('perf')));

// the addon, built for NODE's headers
const version = spawnSync(NODE, ['-p', 'process.versions.node']).stdout.toString().trim();
const include = [path.resolve(path.dirname(NODE), '../include/node'), '/usr/include/node'].find((d) => existsSync(path.join(d, 'node_api.h')));
if (!include) { console.error(`no node_api.h for ${NODE}: install Node's headers`); process.exit(1); }
const addon = path.join(ROOT, `bench/.cache/sample_cost/gaps-${version}.node`);
mkdirSync(path.dirname(addon), { recursive: true });
const cc = spawnSync(process.env.CC || 'cc', ['-O2', '-shared', '-fPIC', `-I${include}`, '-o', addon, path.join(ROOT, 'bench/sample_cost/gaps.c')], { stdio: 'inherit' });
if (cc.status !== 0) process.exit(1);

const work = mkdtempSync(path.join(tmpdir(), 'ns-sample-cost-'));
const children = [];
const cleanup = () => { for (const c of children) try { c.kill('SIGKILL'); } catch {} rmSync(work, { recursive: true, force: true }); };
process.on('exit', cleanup);
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(130));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const exited = (c) => new Promise((r) => (c.exitCode !== null ? r(c.exitCode) : c.on('exit', r)));
const nowUs = () => Number(process.hrtime.bigint()) / 1e3;

// One run: the target spins LEAD + WINDOW + TAIL seconds; the tool samples it for WINDOW seconds
// after LEAD. Returns the gaps, the main thread's sample times and the window, all in us.
async function run(mode) {
  const hz = Number(mode.replace(/^\D+/, ''));
  const ours = mode.startsWith('live') || mode.startsWith('b');
  const gapsFile = path.join(work, 'gaps.bin'), out = path.join(work, ours ? 'p.cpuprofile' : 'perf.data');
  const target = spawn(NODE, [path.join(ROOT, 'bench/sample_cost/target.js'), addon, String(LEAD + WINDOW + TAIL), gapsFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(target);
  await new Promise((r) => target.stdout.once('data', r));   // "spinning"
  await sleep(LEAD * 1000);
  const from = nowUs();
  const tool = ours
    ? spawn(mode.startsWith('b') ? NS_B : NS, ['record', '-p', String(target.pid), '-F', String(hz), '-d', String(WINDOW), '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn('perf', ['record', '-q', '-k', 'mono', ...(mode.startsWith('perfdwarf') ? ['--call-graph', `dwarf,${STACK_BYTES}`] : ['-g']), '-F', String(hz),
      '-p', String(target.pid), '-o', out, '--', 'sleep', String(WINDOW)], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(tool);
  let err = '';
  tool.stderr.on('data', (d) => (err += d));
  if (await exited(tool) !== 0) { console.error(`${mode}: the tool failed:\n${err}`); process.exit(1); }
  const to = nowUs();
  await exited(target);
  const raw = readFileSync(gapsFile);
  const gaps = new Float64Array(raw.buffer, raw.byteOffset, raw.length / 8);
  let times = [];
  if (ours) {
    const p = JSON.parse(readFileSync(out, 'utf8'));
    let t = p.startTime;
    for (const d of p.timeDeltas) times.push((t += d));
  } else {
    const s = spawnSync('perf', ['script', '-i', out, '-F', 'tid,time', '--ns'], { maxBuffer: 1 << 28 }).stdout.toString();
    for (const line of s.split('\n')) {
      const m = /^\s*(\d+)\s+([\d.]+):/.exec(line);
      if (m && Number(m[1]) === target.pid) times.push(Number(m[2]) * 1e6);
    }
  }
  times = times.filter((t) => t >= from && t <= to).sort((a, b) => a - b);
  return { gaps, times, from, to, hz };
}

// index of the gap (a pair in gaps) that contains t, or -1
function gapAt(gaps, t) {
  let lo = 0, hi = gaps.length / 2 - 1;
  if (hi < 0 || t < gaps[0]) return -1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (gaps[2 * mid] <= t) lo = mid; else hi = mid - 1; }
  return t <= gaps[2 * lo + 1] ? lo : -1;
}
// A gap counts up to CAP_US: a sample's interrupt takes tens of us, while the VM's vCPU is now and
// then not run for milliseconds, and a timer that expired meanwhile fires as it is back, inside
// that gap; samples and control instants land in such gaps alike, and uncapped, one of them moved
// a run's result by half a point.
const CAP_US = 300;
function analyse({ gaps, times, from, to, hz }) {
  const len = (i) => Math.min(CAP_US, gaps[2 * i + 1] - gaps[2 * i]);
  const hit = new Set();
  for (const t of times) { const i = gapAt(gaps, t); if (i >= 0) hit.add(i); }
  let sampled = 0;
  for (const i of hit) sampled += len(i);
  const period = 1e6 / hz, offsets = [0.25, 0.5, 0.75];
  let control = 0;
  for (const f of offsets) {
    const seen = new Set();
    for (const t of times) { const i = gapAt(gaps, t + f * period); if (i >= 0 && !hit.has(i) && !seen.has(i)) { seen.add(i); control += len(i); } }
  }
  control /= offsets.length;
  // every gap, in the window and outside it (the run's lead and tail)
  let inside = 0, outside = 0, outsideSpan = 0;
  for (let i = 0; i < gaps.length / 2; i++) {
    const whole = gaps[2 * i + 1] - gaps[2 * i];
    if (gaps[2 * i] >= from && gaps[2 * i + 1] <= to) inside += whole;
    else outside += whole;
  }
  const first = gaps.length ? gaps[0] : from, last = gaps.length ? gaps[gaps.length - 1] : to;
  outsideSpan = Math.max(1, (from - first) + (last - to));
  const span = to - from, excess = sampled - control;
  return {
    samples: times.length, inGap: hit.size, costPct: 100 * excess / span, perSampleUs: times.length ? excess / times.length : NaN,
    allIn: 100 * inside / span, allOut: 100 * outside / outsideSpan,
  };
}

console.log(`Node ${version}; ${ROUNDS} rounds of ${modes.join(', ')} (${WINDOW} s windows), load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const results = Object.fromEntries(modes.map((m) => [m, []]));
for (let r = 0; r < ROUNDS; r++) {
  const order = modes.map((m, i) => modes[(i + r) % modes.length]);   // the order rotates by round
  for (const mode of order) results[mode].push(analyse(await run(mode)));
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}
const mean = (a) => a.reduce((s, x) => s + x, 0) / a.length;
const fmt = (a, d = 3) => a.map((x) => x.toFixed(d)).join(' ');
for (const mode of modes) {
  const rs = results[mode];
  console.log(`${mode.padEnd(8)} cost ${mean(rs.map((x) => x.costPct)).toFixed(3)}% (rounds: ${fmt(rs.map((x) => x.costPct))}), ` +
    `${mean(rs.map((x) => x.perSampleUs)).toFixed(1)} us a sample (${fmt(rs.map((x) => x.perSampleUs), 1)}); ` +
    `samples ${fmt(rs.map((x) => x.samples), 0)}, in a gap ${fmt(rs.map((x) => 100 * x.inGap / Math.max(1, x.samples)), 0)}%\n` +
    `         all gaps: window ${fmt(rs.map((x) => x.allIn), 2)}%, outside it ${fmt(rs.map((x) => x.allOut), 2)}%`);
}
console.log(`load after: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
process.exit(0);
