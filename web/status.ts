/**
 * The words of the playground's status line, for a reader in a browser (pure: no DOM here).
 * The library's messages are written for every runtime, and some of their advice is for Node
 * (install a Vulkan driver, a package); a browser's reader can act on none of it. The line has
 * two parts: what is happening, and where it runs — the backend, and in a short clause why it
 * is not the GPU. Neither part nests brackets, so both fit a phone's width in a line or two.
 */

/** Why the page trains on the CPU, from the error that starting the webgpu backend gave (or none: the browser has no WebGPU at all). */
export function gpuFallbackNote(error: unknown, browserHasWebGpu: boolean): string {
  if (!browserHasWebGpu) return 'no WebGPU in this browser';
  const message = error instanceof Error ? error.message : String(error);
  if (/no WebGPU adapter/i.test(message)) return 'no GPU for WebGPU here';
  return `WebGPU did not start: ${firstClause(message.replace(/^backend 'webgpu' cannot start here: /, ''))}`;
}

/** Why a run stays on the host although the GPU is there: the first clause of the device trainer's refusal. */
export function hostNote(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `on the host: ${firstClause(message)}`;
}

/** The backend part of the status line: `wasm, relaxed SIMD, 2 threads · no WebGPU in this browser`. */
export function whereItRuns(backend: string, note?: string): string {
  return note ? `${backend} · ${note}` : backend;
}

/** The most a clause of the status line says: with the backend, a line or two on a phone. */
const CLAUSE = 60;

/** A message up to its first colon, semicolon or bracket (where detail or advice starts), at most CLAUSE characters. */
export function firstClause(message: string): string {
  const head = message.split(/[:;]\s|\s\(|\s\[/)[0]!.trim();
  return head.length <= CLAUSE ? head : `${head.slice(0, CLAUSE - 1).trimEnd()}…`;
}
