// Resident arrays (Backend.alloc on the wasm backend) are freed when they are garbage-
// collected, and at most 1 GiB is resident at a time. Garbage collection on demand needs
// `node --expose-gc`, so this runs in a child Node on the built backend (dist/; skipped when
// it has not been built).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { built, describeWith } from '../peer/available.js';

const dist = fileURLToPath(new URL('../../dist/src/tensor/wasm-backend.js', import.meta.url));

const CHILD = `
import { createWasmBackend } from ${JSON.stringify(dist)};
const be = await createWasmBackend({ threads: 1 });
const n = 4 << 20; // 16 MiB of float32
const settle = async () => { gc(); await new Promise((r) => setTimeout(r, 0)); };
// 3.2 GiB allocated in all, one array alive at a time: freed blocks must be reused
for (let i = 0; i < 200; i++) {
  const a = be.alloc(n);
  if (!a || a[n - 1] !== 0) throw new Error('alloc ' + i + ' failed or was not zeroed');
  a.fill(i);
  if (i % 10 === 9) await settle();
}
await settle();
const afterChurn = be.memoryStats();
const held = [];
for (let a; (a = be.alloc(n)); ) held.push(a);
console.log(JSON.stringify({ afterChurn, held: held.length, full: be.memoryStats() }));
`;

describeWith(built(dist), 'resident arrays of the wasm backend', () => {
  it('are freed when collected (3.2 GiB allocated, the memory stays small) and stop at 1 GiB resident', () => {
    const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as {
      afterChurn: { memoryBytes: number; residentBytes: number };
      held: number;
      full: { memoryBytes: number; residentBytes: number };
    };
    expect(out.afterChurn.memoryBytes).toBeLessThan(400 * 2 ** 20);
    expect(out.afterChurn.residentBytes).toBeLessThanOrEqual(11 * 16 * 2 ** 20);
    // 64 arrays of 16 MiB make 1 GiB; the cap refuses the next one (undefined, not a throw)
    expect(out.held).toBeGreaterThanOrEqual(53);
    expect(out.held).toBeLessThanOrEqual(64);
    expect(out.full.residentBytes).toBeLessThanOrEqual(2 ** 30);
  }, 130_000);
});
