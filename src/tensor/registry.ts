import { jsBackend } from './js-backend.js';
import type { Backend } from './backend.js';

// the reference backend is always there; a fast one registers itself when it loads
const registry = new Map<string, Backend>([['js', jsBackend]]);
let current: Backend | undefined;

export function registerBackend(b: Backend): void {
  registry.set(b.name, b);
}

export function backendNames(): string[] {
  return [...registry.keys()];
}

export function getBackendByName(name: string): Backend | undefined {
  return registry.get(name);
}

/** The backend in use. The reference backend until `setBackend` picks another. */
export function backend(): Backend {
  if (!current) current = registry.get('js')!;
  return current;
}

/**
 * n zeroed float32s for a buffer that lives across many calls: from the current backend's
 * own memory where it has one (Backend.alloc), else an ordinary array.
 */
export function allocFloat32(n: number): Float32Array {
  return backend().alloc?.(n) ?? new Float32Array(n);
}

export function setBackend(b: Backend | string): Backend {
  const next = typeof b === 'string' ? registry.get(b) : b;
  if (!next) throw new Error(`unknown backend '${String(b)}'; known: ${backendNames().join(', ')}`);
  current = next;
  return next;
}
