// Copies the Python files of the PyTorch export (src/io/pytorch/python/*.py: model.py's and
// train.py's templates, layers.py) beside the compiled modules in dist/, where
// src/io/pytorch/node-python.ts reads them (tsc copies only what it compiles). Run by
// `npm run build` after tsc, so the package's dist/ carries them.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src/io/pytorch/python');
const to = join(root, 'dist/src/io/pytorch/python');
mkdirSync(to, { recursive: true });
const files = readdirSync(from).filter((f) => f.endsWith('.py'));
for (const f of files) copyFileSync(join(from, f), join(to, f));
process.stderr.write(`copy-python: ${files.join(', ')} → dist/src/io/pytorch/python/\n`);
