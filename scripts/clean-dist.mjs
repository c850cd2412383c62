// Removes dist/ before tsc writes it again: a module whose source moved or was deleted would
// otherwise stay in dist/ (importable, and shipped by `npm pack` without its source map's
// sources — test/docs/consumer.full.test.ts checks the package).
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

rmSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'), { recursive: true, force: true });
