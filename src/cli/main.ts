#!/usr/bin/env node
import { run } from './run.js';
import { initFastBackend } from '../tensor/wasm-backend.js';

// The wasm SIMD backend is the default (docs/backends.md); PARALENS_BACKEND=js keeps the
// reference backend. If wasm cannot load, initFastBackend keeps js and prints nothing.
if (process.env['PARALENS_BACKEND'] !== 'js') await initFastBackend();

run(process.argv.slice(2), {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  errIsTTY: Boolean(process.stderr.isTTY),
}).then((code) => {
  process.exitCode = code;
});
