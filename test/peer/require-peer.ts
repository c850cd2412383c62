import { it } from 'vitest';

/**
 * A peer check that cannot run here (the peer is not installed): skipped with a printed
 * reason, except under CI=true, where a failing test stands in for it — a cross-check must
 * never pass silently in CI because its peer is missing.
 */
export function requirePeer(available: boolean, what: string, install: string): void {
  if (available) return;
  if (process.env.CI === 'true' || process.env.CI === '1') {
    it(`${what} needs its peer (${install})`, () => {
      throw new Error(`${what}: the peer is missing and CI=true; ${install}`);
    });
  } else {
    console.warn(`${what}: peer missing (${install}): skipped`);
  }
}
