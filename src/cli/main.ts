#!/usr/bin/env node
import { run } from './run.js';
import { initFastBackend } from '../tensor/wasm-backend.js';

// The wasm SIMD backend is the default (docs/backends.md); PARALENS_BACKEND=js keeps the
// reference backend. If wasm cannot load, initFastBackend keeps js and prints nothing.
if (process.env['PARALENS_BACKEND'] !== 'js') await initFastBackend();

// `paralens … | head`: a reader that closes the pipe early ends the command quietly
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

run(process.argv.slice(2), {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  errIsTTY: Boolean(process.stderr.isTTY),
}).then((code) => {
  process.exitCode = code;
});
