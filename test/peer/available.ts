import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Python, with NumPy and PyTorch where they are installed. */
export const PYTHON = '/usr/bin/python3';

/** Whether /usr/bin/python3 can import these modules. */
export function pythonHas(...modules: string[]): boolean {
  return existsSync(PYTHON) && spawnSync(PYTHON, ['-c', modules.map((m) => `import ${m}`).join('; ')], { encoding: 'utf8' }).status === 0;
}

/**
 * A test that needs a peer (NumPy, PyTorch, …): it runs when the peer is there; otherwise it is
 * skipped with the reason printed — and under CI=true it fails instead, so that a missing peer
 * is never mistaken for a pass.
 */
export function needPeer(ctx: { skip: (note?: string) => void }, available: boolean, what: string): void {
  if (available) return;
  const reason = `${what} is missing`;
  if (process.env['CI'] === 'true') throw new Error(`${reason} (CI=true: peer tests fail instead of skipping)`);
  console.warn(`skipped: ${reason}`);
  ctx.skip(reason);
}
