// bench/live_sample_cost.mjs's target: spins in the gaps addon for SECONDS on its main thread
// (called from JS, so a sampler sees JS frames above the native ones), then writes the gaps it saw
// ([start, end] microsecond pairs, CLOCK_MONOTONIC, float64) to OUT and exits.
//   node target.js ADDON SECONDS OUT [THRESHOLD_US]
const fs = require('fs');
const [addon, secs, out, threshold = '1'] = process.argv.slice(2);
const { spin } = require(addon);
const gaps = new Float64Array(1 << 23);   // 4 M gaps: ample for a minute at this VM's ~2,000 a second
let used = 0;
function work(ms) { used = spin(ms, Number(threshold), gaps, used); }
console.log('spinning');
const end = Date.now() + Number(secs) * 1000;
while (Date.now() < end) work(20);
if (used + 2 > gaps.length) console.error('gap buffer full: later gaps not recorded');
fs.writeFileSync(out, Buffer.from(gaps.buffer, 0, used * 8));
