#!/usr/bin/env node
import { run } from './run.js';

// `paralens … | head`: a reader that closes the pipe early ends the command quietly
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

run(
  process.argv.slice(2),
  {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    errIsTTY: Boolean(process.stderr.isTTY),
  },
  {
    // commands that compute start the wasm SIMD backend on every core (docs/backends.md);
    // --backend / PARALENS_BACKEND and --threads / PARALENS_THREADS choose otherwise
    startBackend: true,
    env: process.env,
  },
).then((code) => {
  process.exitCode = code;
});
