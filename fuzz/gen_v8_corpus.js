// Writes seed inputs for fuzz/fuzz_v8_decoders.c: small memory images laid out as Node 20
// (V8 11.3) lays out its heap, each preceded by the 4-byte offset of the value to decode.
// Usage: node fuzz/gen_v8_corpus.js fuzz/corpus/v8_decoders
'use strict';
const fs = require('fs');
const path = require('path');
const out = process.argv[2] || path.join(__dirname, 'corpus', 'v8_decoders');
const BASE = 0x100000n;

// Node 20 instance types and offsets (from fuzz/v8_node20_metadata.h)
const T = { MAP: 255, ONE_BYTE: 40, TWO_BYTE: 32, CONS_ONE: 41, CONS_TWO: 33, SLICED_ONE: 43, THIN_ONE: 45,
            HEAP_NUMBER: 130, ODDBALL: 131, BIGINT: 129, JS_MAP: 2108, JS_DATE: 2118, JS_OBJECT: 1057, JS_ARRAY: 2113, FIXED_ARRAY: 175, DESCRIPTORS: 236 };

class Image {
  constructor() { this.buf = Buffer.alloc(0x10000); this.top = 0; this.maps = {}; this.metaMap(); }
  alloc(size) { const at = this.top; this.top += (size + 15) & ~15; return at; }
  tag(off) { return BASE + BigInt(off) + 1n; }
  word(off, v) { this.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v)), off); }
  smi(v) { return BigInt(v) << 32n; }
  metaMap() { const m = this.alloc(80); this.word(m, this.tag(m)); this.buf.writeUInt16LE(T.MAP, m + 12); this.meta = m; }
  map(type, extra) {
    if (!extra && this.maps[type] !== undefined) return this.maps[type];
    const m = this.alloc(80);
    if (!extra) { this.maps[type] = m; extra = {}; }
    this.word(m, this.tag(this.meta));
    this.buf.writeUInt8(extra.sizeWords || 0, m + 8);
    this.buf.writeUInt8(extra.inobjectStart || 0, m + 9);
    this.buf.writeUInt16LE(type, m + 12);
    this.buf.writeUInt8(extra.bitField2 || 0, m + 15);
    this.buf.writeUInt32LE(extra.bitField3 || 0, m + 16);
    if (extra.descriptors !== undefined) this.word(m + 40, extra.descriptors);
    return m;
  }
  seqOne(s) {
    const o = this.alloc(16 + s.length);
    this.word(o, this.tag(this.map(T.ONE_BYTE)));
    this.buf.writeInt32LE(s.length, o + 12);
    this.buf.write(s, o + 16, 'latin1');
    return o;
  }
  seqTwo(s) {
    const o = this.alloc(16 + 2 * s.length);
    this.word(o, this.tag(this.map(T.TWO_BYTE)));
    this.buf.writeInt32LE(s.length, o + 12);
    this.buf.write(s, o + 16, 'utf16le');
    return o;
  }
  cons(a, b, len) {
    const o = this.alloc(32);
    this.word(o, this.tag(this.map(T.CONS_ONE)));
    this.buf.writeInt32LE(len, o + 12);
    this.word(o + 16, this.tag(a));
    this.word(o + 24, this.tag(b));
    return o;
  }
  save(name, root) {
    const head = Buffer.alloc(4);
    head.writeUInt32LE(root);
    fs.writeFileSync(path.join(out, name), Buffer.concat([head, this.buf.subarray(0, this.top)]));
  }
}

fs.mkdirSync(out, { recursive: true });
let im;

im = new Image(); im.save('seq_one_byte', im.seqOne('hello, core'));
im = new Image(); im.save('seq_two_byte', im.seqTwo('ŝtring ☃ 😀 and a lone \ud800 half'));
im = new Image(); { const a = im.seqOne('left|'), b = im.seqOne('right'); im.save('cons', im.cons(a, b, 10)); }
im = new Image(); { // a cons string whose halves point back at itself
  const c = im.cons(0, 0, 20); im.word(c + 16, im.tag(c)); im.word(c + 24, im.tag(c)); im.save('cons_cycle', c); }
im = new Image(); { // a chain of 200 cons strings
  let s = im.seqOne('x'), len = 1;
  for (let i = 0; i < 200; i++) { const leaf = im.seqOne('y'); len += 1; s = im.cons(s, leaf, len); }
  im.save('cons_deep', s); }
im = new Image(); { const p = im.seqOne('0123456789abcdef'), o = im.alloc(32);
  im.word(o, im.tag(im.map(T.SLICED_ONE))); im.buf.writeInt32LE(6, o + 12); im.word(o + 16, im.tag(p)); im.word(o + 24, im.smi(4));
  im.save('sliced', o); }
im = new Image(); { const a = im.seqOne('actual'), o = im.alloc(24);
  im.word(o, im.tag(im.map(T.THIN_ONE))); im.buf.writeInt32LE(6, o + 12); im.word(o + 16, im.tag(a)); im.save('thin', o); }
im = new Image(); { const o = im.alloc(16); im.word(o, im.tag(im.map(T.HEAP_NUMBER))); im.buf.writeDoubleLE(42.5, o + 8); im.save('heap_number', o); }
im = new Image(); { // an oddball whose to_string is "undefined"
  const s = im.seqOne('undefined'), o = im.alloc(48); im.word(o, im.tag(im.map(T.ODDBALL))); im.word(o + 16, im.tag(s));
  im.buf.writeInt32LE(5, o + 40); im.save('oddball', o); }
im = new Image(); { // a JSObject {a: 1, b: "two"} with two in-object fields and its descriptors
  const ka = im.seqOne('a'), kb = im.seqOne('b'), two = im.seqOne('two');
  const d = im.alloc(24 + 2 * 24); im.word(d, im.tag(im.map(T.DESCRIPTORS)));
  const details = (index) => im.smi((index << 19) | (4 << 6));   // field, tagged representation
  im.word(d + 24, im.tag(ka)); im.word(d + 32, details(0)); im.word(d + 48, im.tag(kb)); im.word(d + 56, details(1));
  const m = im.map(T.JS_OBJECT, { sizeWords: 5, inobjectStart: 3, bitField2: 1 | (2 << 2), bitField3: 2 << 10, descriptors: im.tag(d) });
  const o = im.alloc(40); im.word(o, im.tag(m)); im.word(o + 24, im.smi(1)); im.word(o + 32, im.tag(two));
  im.save('object', o); }
im = new Image(); { // a JSArray [1, 2, 3]
  const e = im.alloc(16 + 24); im.word(e, im.tag(im.map(T.FIXED_ARRAY))); im.word(e + 8, im.smi(3));
  for (let i = 0; i < 3; i++) im.word(e + 16 + 8 * i, im.smi(i + 1));
  const m = im.map(T.JS_ARRAY, { sizeWords: 4, inobjectStart: 4, bitField2: 1 | (2 << 2) });
  const o = im.alloc(32); im.word(o, im.tag(m)); im.word(o + 16, im.tag(e)); im.word(o + 24, im.smi(3));
  im.save('array', o); }
im = new Image(); { // an object whose field holds itself: print shows [Circular *1]
  const ka = im.seqOne('self');
  const d = im.alloc(24 + 24); im.word(d, im.tag(im.map(T.DESCRIPTORS)));
  im.word(d + 24, im.tag(ka)); im.word(d + 32, im.smi((0 << 19) | (4 << 6)));
  const m = im.map(T.JS_OBJECT, { sizeWords: 4, inobjectStart: 3, bitField2: 1 | (2 << 2), bitField3: 1 << 10, descriptors: im.tag(d) });
  const o = im.alloc(32); im.word(o, im.tag(m)); im.word(o + 24, im.tag(o));
  im.save('print_cycle', o); }
im = new Image(); { // a BigInt claiming 2^29 digits
  const o = im.alloc(32); im.word(o, im.tag(im.map(T.BIGINT))); im.buf.writeUInt32LE(((1 << 29) << 1) >>> 0, o + 8);
  im.word(o + 16, 12345n); im.save('bigint_absurd', o); }
im = new Image(); { // a Map whose table claims a million entries in a 9-slot array
  const t = im.alloc(16 + 9 * 8); im.word(t, im.tag(im.map(T.FIXED_ARRAY))); im.word(t + 8, im.smi(9));
  im.word(t + 16, im.smi(1000000)); im.word(t + 24, im.smi(0)); im.word(t + 32, im.smi(2));
  const m = im.map(T.JS_MAP, { sizeWords: 4, inobjectStart: 4, bitField2: 1 | (2 << 2) });
  const o = im.alloc(32); im.word(o, im.tag(m)); im.word(o + 24, im.tag(t)); im.save('map_absurd', o); }
im = new Image(); { // a Date holding a HeapNumber
  const n = im.alloc(16); im.word(n, im.tag(im.map(T.HEAP_NUMBER))); im.buf.writeDoubleLE(946729845678, n + 8);
  const m = im.map(T.JS_DATE, { sizeWords: 4, inobjectStart: 4, bitField2: 1 | (2 << 2) });
  const o = im.alloc(32); im.word(o, im.tag(m)); im.word(o + 24, im.tag(n)); im.save('date', o); }
im = new Image(); { // three arrays of 1,000 holding the next one 1,000 times: a billion values to
  // print from 24 KiB, stopped by the printer's value cap (the fuzz target's is 20,000)
  let next = null;
  for (let level = 0; level < 3; level++) {
    const e = im.alloc(16 + 8 * 1000); im.word(e, im.tag(im.map(T.FIXED_ARRAY))); im.word(e + 8, im.smi(1000));
    for (let i = 0; i < 1000; i++) im.word(e + 16 + 8 * i, next === null ? im.smi(i) : im.tag(next));
    const m = im.map(T.JS_ARRAY, { sizeWords: 4, inobjectStart: 4, bitField2: 1 | (2 << 2) });
    next = im.alloc(32); im.word(next, im.tag(m)); im.word(next + 16, im.tag(e)); im.word(next + 24, im.smi(1000));
  }
  im.save('print_dag', next); }
im = new Image(); { // an array of 1,000 holding 1,000 times one that holds 1,000 times an array of
  // length 1,000 with one element: JSON.stringify writes null for each of its 999 holes, and the
  // printer wrote them without counting them as values (tens of millions of nulls: 2.4 s at a cap
  // of 2,000 values in the fuzz build, found by fuzzing print_dag)
  const ce = im.alloc(16 + 8); im.word(ce, im.tag(im.map(T.FIXED_ARRAY))); im.word(ce + 8, im.smi(1)); im.word(ce + 16, im.smi(7));
  const m = im.map(T.JS_ARRAY, { sizeWords: 4, inobjectStart: 4, bitField2: 1 | (2 << 2) });
  let next = im.alloc(32); im.word(next, im.tag(m)); im.word(next + 16, im.tag(ce)); im.word(next + 24, im.smi(1000));
  for (let level = 0; level < 2; level++) {
    const e = im.alloc(16 + 8 * 1000); im.word(e, im.tag(im.map(T.FIXED_ARRAY))); im.word(e + 8, im.smi(1000));
    for (let i = 0; i < 1000; i++) im.word(e + 16 + 8 * i, im.tag(next));
    next = im.alloc(32); im.word(next, im.tag(m)); im.word(next + 16, im.tag(e)); im.word(next + 24, im.smi(1000));
  }
  im.save('print_holes', next); }
console.log('wrote seeds to ' + out);
