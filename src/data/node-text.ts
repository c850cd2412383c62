/**
 * Text files for the character-level data sets (Node only): `text:PATH`, any UTF-8 file,
 * and `fortunes`, Debian's package of that name.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '../errors.js';
import { readRegularFile } from './node-file.js';

/** Where the Debian package `fortunes` puts its files. */
export const FORTUNES_DIR = '/usr/share/games/fortunes';

/** Text files larger than this are refused before they are read (a string of them would take twice as many bytes). */
const MAX_TEXT_BYTES = 256 * 2 ** 20;

/** A UTF-8 file as a string; a DataError naming the path when it is missing, too large or not UTF-8. */
export function readTextFile(path: string): string {
  const bytes = readRegularFile(path, MAX_TEXT_BYTES, `text:${path}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    throw new DataError(`text:${path}: not valid UTF-8 (${(e as Error).message})`);
  }
}

/**
 * The fortunes text: every regular file of `dir` that is not a `.dat` index and not a symbolic
 * link, sorted by name, read as UTF-8 and concatenated.
 */
export function readFortunes(dir = FORTUNES_DIR): string {
  const install = dir === FORTUNES_DIR ? 'install the Debian package fortunes (apt-get install -y fortunes)' : `check the directory ${dir}`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    throw new DataError(`fortunes: ${dir} not found: ${install}`);
  }
  const files = names.filter((n) => !n.endsWith('.dat') && lstatSync(join(dir, n)).isFile()).sort();
  if (files.length === 0) throw new DataError(`fortunes: no fortune files in ${dir}: ${install}`);
  return files.map((n) => readTextFile(join(dir, n))).join('');
}
