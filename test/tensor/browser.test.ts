// The wasm backend in a real browser (Chromium through playwright-core): loaded as the
// compiled ES modules from dist/ (run `npm run build` first; needs dist/ and Chromium, see
// test/peer/available.ts). With cross-origin isolation (COOP/COEP headers) it must use two threads;
// without it, shared memory is unavailable and it must fall back to one thread.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { built, CHROMIUM, chromium as chromiumPeer, describeWith } from '../peer/available.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const PAGE = `<!doctype html><script type="module">
import { createWasmBackend } from '/dist/src/tensor/wasm-backend.js';
import { jsBackend } from '/dist/src/tensor/js-backend.js';
try {
  const be = await createWasmBackend({ minGemmVolume: 0, minParallelVolume: 0 });
  const m = 130, n = 70, k = 300;
  const a = Float32Array.from({ length: m * k }, (_, i) => Math.sin(i)), b = Float32Array.from({ length: k * n }, (_, i) => Math.cos(i));
  let worst = 0;
  for (const [tA, tB] of [[false, false], [true, false], [false, true], [true, true]]) {
    const c1 = new Float32Array(m * n), c2 = new Float32Array(m * n);
    be.gemm(tA, tB, m, n, k, a, b, c1, false);
    jsBackend.gemm(tA, tB, m, n, k, a, b, c2, false);
    for (let i = 0; i < c1.length; i++) worst = Math.max(worst, Math.abs(c1[i] - c2[i]) / (1 + Math.abs(c2[i])));
  }
  const x = Float32Array.from({ length: 999 }, (_, i) => i / 100 - 5), y = new Float32Array(999);
  be.unary('tanh', x, y);
  for (let i = 0; i < 999; i++) worst = Math.max(worst, Math.abs(y[i] - Math.tanh(x[i])));
  window.result = { ok: true, threads: be.threads, simd: be.simd, isolated: self.crossOriginIsolated, worst };
} catch (e) {
  window.result = { ok: false, error: String((e && e.stack) || e) };
}
</script>`;

function serve(isolated: boolean): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    const headers: Record<string, string> = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    if (path === '/') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html' });
      res.end(PAGE);
      return;
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(join(root, 'dist')) || !existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() });
    }),
  );
}

describeWith([built(join(root, 'dist/src/tensor/wasm-backend.js')), chromiumPeer()], 'wasm backend in Chromium', () => {
  let browser: import('playwright-core').Browser;
  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it.each([
    [true, 2],
    [false, 1],
  ] as const)(
    'cross-origin isolated %s: runs on %i thread(s) and agrees with the reference',
    async (isolated, threads) => {
      const server = await serve(isolated);
      try {
        const page = await browser.newPage();
        await page.goto(server.url);
        await page.waitForFunction(() => (window as unknown as { result?: unknown }).result, null, { timeout: 30_000 });
        const r = await page.evaluate(
          () => (window as unknown as { result: { ok: boolean; error?: string; threads: number; isolated: boolean; worst: number } }).result,
        );
        expect(r.error).toBeUndefined();
        expect(r.isolated).toBe(isolated);
        expect(r.threads).toBe(threads);
        expect(r.worst).toBeLessThan(1e-5);
        await page.close();
      } finally {
        server.close();
      }
    },
    60_000,
  );
});
