import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn('Chromium not found (apt-get install -y chromium): skipping browser tests');

/**
 * Debian's Chromium, headless, with no network of its own. Never a browser download.
 * Playwright gives every launch a fresh temporary profile (user-data dir).
 */
export async function launch() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
