// bench/sourcemap.sh's JavaScript side: @jridgewell/trace-mapping on the same map and
// positions. usage: node sourcemap.mjs MAP POSITIONS (writes POSITIONS first when absent:
// one million positions on the map's generated lines, from a fixed seed)
import fs from 'fs';
import { createRequire } from 'module';
const require = createRequire(import.meta.url);
const { AnyMap, originalPositionFor } = require('../tests/node_modules/@jridgewell/trace-mapping');
const [mapFile, posFile] = process.argv.slice(2);
const text = fs.readFileSync(mapFile, 'utf8');
if (!fs.existsSync(posFile)) {
    const lines = JSON.parse(text).mappings.split(';').map((l) => l.length);
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const out = [];
    for (let i = 0; i < 1e6; i++) {
        const line = Math.floor(rnd() * lines.length);
        out.push(`${line} ${Math.floor(rnd() * Math.max(1, lines[line] * 4))}`);
    }
    fs.writeFileSync(posFile, out.join('\n') + '\n');
}
const pos = fs.readFileSync(posFile, 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number));
const c0 = process.cpuUsage();   // the whole process: V8's GC helper threads are part of the cost
const t0 = performance.now();
const m = new AnyMap(text);   // what a reader does: parse the JSON, then decode on first use
let mapped = 0, sum = 0;
const t1 = performance.now();
for (const [line, column] of pos) {
    const p = originalPositionFor(m, { line: line + 1, column });
    if (p.source !== null) mapped++, sum += p.line - 1 + p.column;
}
const t2 = performance.now();
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ parse_ms: +(t1 - t0).toFixed(1), lookup_ms: +(t2 - t1).toFixed(1), total_ms: +(t2 - t0).toFixed(1),
    cpu_ms: +((c.user + c.system) / 1e3).toFixed(1), lookups: pos.length, mapped, checksum: sum }));
