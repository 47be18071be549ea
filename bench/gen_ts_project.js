// Writes a TypeScript project of N modules (default 240) into DIR for the deep-stack
// benchmarks: generic classes, interfaces and mapped types that import each other, so
// `tsc --noEmit -p DIR` spends seconds in deep checker recursion (stacks of 50-130
// frames, thousands of distinct stacks), as type-checking a real code base does.
//   node bench/gen_ts_project.js DIR [N]
const fs = require('fs'), path = require('path');
const dir = process.argv[2], n = +(process.argv[3] || 240);
if (!dir) { console.error('usage: node gen_ts_project.js DIR [N]'); process.exit(2); }
fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, target: 'es2020', module: 'commonjs', noEmit: true },
    include: ['src'],
}, null, 2));
for (let i = 0; i < n; i++) {
    const deps = [1, 2, 3].map(k => (i * 7 + k * 13) % n).filter(d => d !== i);
    const imports = deps.map(d => `import { Box${d}, Shape${d}, mapShape${d} } from './m${d}';`).join('\n');
    const fields = Array.from({ length: 12 }, (_, k) => `  f${k}: ${k % 3 ? 'string' : 'number'} | Box${i}<number>;`).join('\n');
    const uses = deps.map(d => `  const v${d}: Shape${d} = mapShape${d}({} as Shape${d});\n  out.push(new Box${d}(v${d}).map(x => ({ ...x, tag: '${i}' as const })));`).join('\n');
    fs.writeFileSync(path.join(dir, 'src', `m${i}.ts`), `${imports}
export interface Shape${i} {
${fields}
  nested: { [K in 'a' | 'b' | 'c']: Partial<Record<K, Shape${i}['f0']>> };
}
export type Deep${i}<T> = { readonly [K in keyof T]: T[K] extends object ? Deep${i}<T[K]> : T[K] };
export class Box${i}<T> {
  constructor(public value: T) {}
  map<U>(f: (t: T) => U): Box${i}<U> { return new Box${i}(f(this.value)); }
  flat<U>(this: Box${i}<Box${i}<U>>): Box${i}<U> { return this.value; }
}
export function mapShape${i}<S extends Shape${i}>(s: S): Deep${i}<S> { return s as Deep${i}<S>; }
export function use${i}(): unknown[] {
  const out: unknown[] = [];
${uses}
  return out;
}
`);
}
