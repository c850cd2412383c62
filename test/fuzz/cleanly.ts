import { expect } from 'vitest';
import { ParalensError } from '../../src/errors.js';

/** Runs per in-process fuzz target: a few hundred in the suite; PARALENS_FUZZ_RUNS for the long opt-in run. */
export const NUM_RUNS = Number(process.env.PARALENS_FUZZ_RUNS ?? 300);

/** Runs `f`; the only allowed outcomes are a result or a typed ParalensError with a message. Returns the result or the error. */
export function cleanly<T>(f: () => T): T | ParalensError {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof ParalensError)) throw new Error(`untyped error ${(e as Error)?.name}: ${(e as Error)?.message}`);
    expect(e.message.length).toBeGreaterThan(0);
    return e;
  }
}

/** The async version of `cleanly`. */
export async function cleanlyAsync<T>(f: () => Promise<T>): Promise<T | ParalensError> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof ParalensError)) throw new Error(`untyped error ${(e as Error)?.name}: ${(e as Error)?.message}`);
    expect(e.message.length).toBeGreaterThan(0);
    return e;
  }
}

/** Byte-level mutations of a valid input: flips, overwrites, truncation, insertion, splicing of a random run. */
export function mutate(bytes: Uint8Array, ops: readonly [number, number, number][]): Uint8Array {
  let b = bytes.slice();
  for (const [kind, at0, v] of ops) {
    const at = b.length ? at0 % b.length : 0;
    switch (kind % 5) {
      case 0:
        if (b.length) b[at]! ^= 1 << (v % 8);
        break;
      case 1:
        if (b.length) b[at] = v & 0xff;
        break;
      case 2:
        b = b.slice(0, at);
        break;
      case 3: {
        const c = new Uint8Array(b.length + 1);
        c.set(b.subarray(0, at));
        c[at] = v & 0xff;
        c.set(b.subarray(at), at + 1);
        b = c;
        break;
      }
      case 4: {
        const n = Math.min(v % 16, b.length - at);
        const c = new Uint8Array(b.length + n);
        c.set(b.subarray(0, at + n));
        c.set(b.subarray(at), at + n);
        b = c;
        break;
      } // duplicate a run
    }
  }
  return b;
}
