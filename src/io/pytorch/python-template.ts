/**
 * Filling the Python files of src/io/pytorch/python/ — real modules that Python compiles as
 * they stand — with what one export generates. Three kinds of slot, each found exactly once
 * or refused (a template and its filler cannot drift apart silently):
 *   `$name` in a docstring (string.Template's placeholder: text for the reader),
 *   a module-level assignment `NAME = …` on one line (data: the spec, the recorded settings),
 *   a top-level class (code: the exported model).
 */

/** Replaces every `$name` of `values` (each must occur) in the text. */
export function substitute(source: string, values: Readonly<Record<string, string>>): string {
  let out = source;
  for (const [name, value] of Object.entries(values)) {
    const token = new RegExp(`\\$${name}\\b`, 'g');
    if (!token.test(out)) throw new Error(`Python template: no $${name} to fill`);
    out = out.replace(token, () => value);
  }
  return out;
}

/** Sets the module-level assignment `name = …` (one line in the template) to `name = value`. */
export function assign(source: string, name: string, value: string): string {
  const line = new RegExp(`^${name} = .*$`, 'gm');
  const found = source.match(line)?.length ?? 0;
  if (found !== 1) throw new Error(`Python template: ${found} assignments to ${name}, expected one`);
  return source.replace(line, () => `${name} = ${value}`);
}

/** The lines [start, end) of the top-level class `name`: its `class` line and its body, without the blank lines after it. */
function classLines(lines: readonly string[], name: string): [number, number] {
  const start = lines.findIndex((l) => l.startsWith(`class ${name}(`) || l.startsWith(`class ${name}:`));
  if (start < 0) throw new Error(`Python template: no class ${name}`);
  let end = start + 1;
  while (end < lines.length && (lines[end] === '' || /^\s/.test(lines[end]!))) end++;
  while (end > start + 1 && lines[end - 1] === '') end--;
  return [start, end];
}

/** The source of the top-level class `name`. */
export function classSource(source: string, name: string): string {
  const lines = source.split('\n');
  const [start, end] = classLines(lines, name);
  return lines.slice(start, end).join('\n');
}

/** The source with the top-level class `name` replaced by `text`. */
export function replaceClass(source: string, name: string, text: string): string {
  const lines = source.split('\n');
  const [start, end] = classLines(lines, name);
  return [...lines.slice(0, start), text, ...lines.slice(end)].join('\n');
}
