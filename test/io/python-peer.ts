import { spawnSync } from 'node:child_process';
import { it } from 'vitest';

/** Debian's Python (python3-torch, python3-onnx are installed for it). */
export const PYTHON = '/usr/bin/python3';

/** Whether `import <modules>` succeeds in PYTHON. */
export function pythonHas(...modules: string[]): boolean {
  return spawnSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { stdio: 'ignore' }).status === 0;
}

/**
 * A peer that a test file needs: present, the tests run; missing, they are skipped with a
 * printed reason — except under CI=true, where a test fails saying what to install, so a
 * CI run without the peer never passes silently. Returns whether the peer is present.
 */
export function requirePeer(what: string, present: boolean, install: string): boolean {
  if (present) return true;
  if (process.env.CI === 'true') {
    it(`needs ${what} (CI=true)`, () => {
      throw new Error(`${what} is missing: ${install}`);
    });
  } else {
    console.warn(`${what} is missing (${install}): these tests are skipped`);
  }
  return false;
}
