import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM } from '../peer/available.js';

/** Chromium's flags for WebGPU on SwiftShader (its own Vulkan driver on the CPU): an adapter without a GPU. */
export const WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--enable-features=Vulkan'];

/**
 * Debian's Chromium, headless, with no network of its own. Never a browser download.
 * Playwright gives every launch a fresh temporary profile (user-data dir). With `webgpu`, the
 * page gets a WebGPU adapter (SwiftShader) instead of no GPU at all.
 */
export async function launch(opts: { webgpu?: boolean } = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      ...(opts.webgpu ? WEBGPU_FLAGS : ['--disable-gpu']),
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Where a test keeps its screenshot: test-output/ (git-ignored), or docs/screenshots/ — the
 * pictures the README shows — when PARALENS_UPDATE_SCREENSHOTS=1, so that running the tests
 * never modifies tracked files.
 */
export function screenshotPath(name: string): string {
  const root = join(__dirname, '..', '..');
  const dir = process.env.PARALENS_UPDATE_SCREENSHOTS ? join(root, 'docs', 'screenshots') : join(root, 'test-output');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** The playground's production build (what `npm run build:web` writes) in a fresh temporary folder; returns the folder. */
export async function buildPlayground(): Promise<string> {
  const { build } = await import('vite');
  const outDir = mkdtempSync(join(tmpdir(), 'paralens-web-'));
  await build({ configFile: join(__dirname, '..', '..', 'web', 'vite.config.ts'), logLevel: 'error', build: { outDir, emptyOutDir: true } });
  return outDir;
}
