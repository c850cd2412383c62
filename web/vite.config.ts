import { defineConfig } from 'vite';
import { singleFile } from './single-file.js';

// Cross-origin isolation: with these headers the page may share wasm memory between
// threads, so the training worker's wasm backend runs its products on two cores.
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

// The playground: `npm run playground` serves it on localhost; `npm run build:web` writes it as
// one self-contained page, dist/web/index.html, that works from file:// and under any sub-path.
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [singleFile()],
  worker: { format: 'iife' },
  server: { host: '127.0.0.1', headers: isolation },
  preview: { headers: isolation },
  build: { outDir: '../dist/web', emptyOutDir: true, target: 'es2022' },
});
