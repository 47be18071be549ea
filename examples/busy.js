// A small Node program with three hot JavaScript functions of known weight,
// used for the bundled example profile and the end-to-end tests.
'use strict';
function parseRecords(n) {            // string work: about half of the CPU time
  let out = 0;
  for (let i = 0; i < n; i++) out += JSON.parse('{"id":' + i + ',"name":"r' + i + '"}').id;
  return out;
}
function sortNumbers(n) {             // array sort: about a third
  const a = [];
  for (let i = 0; i < n; i++) a.push((i * 7919) % 1000003);
  return a.sort((x, y) => x - y)[0];
}
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }   // recursion: the rest

const seconds = Number(process.argv[2] || 2);
const end = Date.now() + seconds * 1000;
let sink = 0;
while (Date.now() < end) {
  sink += parseRecords(3000);
  sink += sortNumbers(4000);
  sink += fib(18);
}
console.log('done', sink > 0);
