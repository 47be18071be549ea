#!/usr/bin/env node
// The `nodescope` command of the npm package: runs the static binary of this machine's platform
// package (@nodescope/linux-x64 or @nodescope/linux-arm64: optional dependencies, each with `os`
// and `cpu`, so npm installs only the one that fits, as esbuild's packages do). Nothing is
// downloaded, at install or here.
//
// The binary runs as a child (spawnSync, stdio inherited): its arguments, environment, terminal,
// output and exit status are the command's. Signals: a terminal's (Ctrl-C, Ctrl-\, a hangup) and a
// process group's (timeout(1), a shell's job control) reach the binary itself, which acts on them
// (record stops and writes its output); this launcher waits for it meanwhile, then ends as it did:
// with its exit status, or killed by the same signal. A signal sent to this launcher's pid alone
// is held until the binary ends (spawnSync runs no JavaScript meanwhile): send it to nodescope's
// pid or to the group.
'use strict';
const { spawnSync } = require('child_process');

const platform = `${process.platform}-${process.arch}`;
const pkg = `@nodescope/${platform}`;
let bin;
try {
  bin = require.resolve(`${pkg}/bin/nodescope`);
} catch (e) {
  const built = Object.keys(require('../package.json').optionalDependencies || {});
  console.error(
    `nodescope: no ${pkg} package here: nodescope is built for ${built.map((p) => p.replace('@nodescope/', '')).join(', ')}` +
      (built.includes(pkg) ? ` (npm left it out: installed with --omit=optional or --no-optional?)` : `, not ${platform}`));
  process.exit(1);
}

// Held, not acted on, while the binary runs (it got the group's signal itself); re-raised below.
const held = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
for (const sig of held) process.on(sig, () => {});

const r = spawnSync(bin, process.argv.slice(2), { stdio: 'inherit' });
if (r.error) {
  console.error(`nodescope: cannot run ${bin}: ${r.error.message}`);
  process.exit(1);
}
if (r.signal) {
  for (const sig of held) process.removeAllListeners(sig);
  process.kill(process.pid, r.signal);
  // a signal whose default action is not to end a process (none that ends nodescope): 128 + N
  process.exit(128 + (require('os').constants.signals[r.signal] || 0));
}
process.exit(r.status);
