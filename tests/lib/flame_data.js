// The frames of a nodescope flame graph SVG, decoded from its packed frame data
// (flame-config: front-coded names, base-32 numbers, 3-character colours), in x order:
// [{name, depth, value, before, color: [r, g, b]}], with .total. Shared by the e2e tests.
module.exports = function (file) {
  const svg = require("fs").readFileSync(file, "utf8");
  const cfg = JSON.parse(/<script type="application\/json" id="flame-config">([\s\S]*?)<\/script>/.exec(svg)[1]);
  const A = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";
  const unpack = (s) => { const o = []; let v = 0; if (s === undefined) return o;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === "~") { const j = s.indexOf(";", i); o.push(+s.slice(i + 1, j)); i = j; continue; }
      const d = A.indexOf(s[i]); if (d >= 32) v = v * 32 + d - 32; else { o.push(v * 32 + d); v = 0; } }
    return o; };
  const names = cfg.names.split("\n");
  for (let i = 0, prev = ""; i < names.length; i++) prev = names[i] = (i % 64 ? prev.slice(0, names[i].charCodeAt(0) - 32) : "") + names[i].slice(1);
  const N = unpack(cfg.n), D = unpack(cfg.d), V = unpack(cfg.v), B = unpack(cfg.b), out = [];
  const color = (k) => [0, 1, 2].map((c) => { const q = A.indexOf(cfg.colors[3 * k + c]); return q << 2 | q >> 4; });
  let seen = 0, depth = -1;
  for (let i = 0; i < cfg.count; i++) {
    const id = N[i] ? seen - N[i] : seen++;
    depth = depth + 1 - D[i];
    out.push({ name: names[id], depth, value: V[i], before: cfg.b ? B[i] : undefined,
               color: color(cfg.colorsPer === "frame" ? i : id) });
  }
  out.total = cfg.total;
  return out;
};
