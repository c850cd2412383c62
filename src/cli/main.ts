#!/usr/bin/env node
import { run } from './run.js';

run(process.argv.slice(2), {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  errIsTTY: Boolean(process.stderr.isTTY),
}).then((code) => {
  process.exitCode = code;
});
