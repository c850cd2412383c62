import { defineConfig } from 'vite';

// The playground: `npm run playground` serves it on localhost.
export default defineConfig({
  root: import.meta.dirname,
  worker: { format: 'es' },
  server: { host: '127.0.0.1' },
  build: { outDir: '../dist/web', emptyOutDir: true, target: 'es2022' },
});
