import { readFileSync } from 'node:fs';

/**
 * The fixed Python of a PyTorch project — model.py's and train.py's templates and layers.py,
 * the torch modules the rules name — read from the .py files in ./python/ beside this module.
 * They are real Python files (test/io/python-files.full.test.ts compiles them); `npm run build`
 * copies them beside the compiled module in dist/ (scripts/copy-python.mjs), so the package
 * carries them. Node only: the browser never exports to PyTorch.
 */
export type PythonFile = 'model.py' | 'train.py' | 'layers.py';

const read = new Map<PythonFile, string>();

export function pythonFile(name: PythonFile): string {
  let text = read.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`./python/${name}`, import.meta.url), 'utf8');
    read.set(name, text);
  }
  return text;
}
