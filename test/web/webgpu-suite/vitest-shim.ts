// Just enough of vitest's API for test/tensor/backend-suite.ts to run in a page: describe and
// it (with .each, .runIf, .skipIf) collect tests; run() executes them in order; expect has the
// matchers the suite uses, failing with vitest-like messages.
type Fn = () => unknown;
interface Test {
  name: string;
  fn: Fn;
}
const tests: Test[] = [];
const prefix: string[] = [];

const format = (name: string, args: readonly unknown[]): string => {
  let i = 0;
  return name.replace(/%[sid]/g, () => String(args[i++]));
};

function describeImpl(name: string, fn: Fn): void {
  prefix.push(name);
  try {
    fn();
  } finally {
    prefix.pop();
  }
}
function itImpl(name: string, fn: Fn): void {
  tests.push({ name: [...prefix, name].join(' > '), fn });
}
const each = (impl: (n: string, f: Fn) => void) => (cases: readonly unknown[]) => (name: string, fn: (...a: unknown[]) => unknown) => {
  for (const c of cases) {
    const args = Array.isArray(c) ? c : [c];
    impl(format(name, args), () => fn(...args));
  }
};
const cond = (impl: (n: string, f: Fn) => void) => (ok: unknown) => (name: string, fn: Fn) => {
  if (ok) impl(name, fn);
};

export const describe = Object.assign(describeImpl, {
  each: each(describeImpl),
  runIf: cond(describeImpl),
  skipIf: (skip: unknown) => cond(describeImpl)(!skip),
});
export const it = Object.assign(itImpl, { each: each(itImpl), runIf: cond(itImpl), skipIf: (skip: unknown) => cond(itImpl)(!skip) });

const show = (v: unknown): string => {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
};
const deepEqual = (a: unknown, b: unknown): boolean => show(a) === show(b);

export function expect(got: unknown, message?: string) {
  const fail = (what: string): never => {
    throw new Error(`${message ? message + ': ' : ''}expected ${show(got)} ${what}`);
  };
  return {
    toBe: (want: unknown) => {
      if (!Object.is(got, want)) fail(`to be ${show(want)}`);
    },
    toEqual: (want: unknown) => {
      if (!deepEqual(got, want)) fail(`to equal ${show(want)}`);
    },
    toBeLessThan: (want: number) => {
      if (!((got as number) < want)) fail(`to be less than ${want}`);
    },
    toBeLessThanOrEqual: (want: number) => {
      if (!((got as number) <= want)) fail(`to be at most ${want}`);
    },
    toBeGreaterThan: (want: number) => {
      if (!((got as number) > want)) fail(`to be greater than ${want}`);
    },
  };
}

/** Runs every collected test; the names of those that failed, with their errors. */
export async function run(): Promise<{ passed: number; failed: { name: string; error: string }[] }> {
  const failed: { name: string; error: string }[] = [];
  let passed = 0;
  for (const t of tests) {
    try {
      await t.fn();
      passed++;
    } catch (e) {
      failed.push({ name: t.name, error: String((e as Error).stack ?? e) });
    }
  }
  return { passed, failed };
}
