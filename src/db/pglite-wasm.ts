import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** A compiled `WebAssembly.Module`, opaque here: this project's TypeScript libs do not declare WebAssembly. */
export type CompiledWasm = object;
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledWasm> };

/**
 * Starts compiling PGlite's WebAssembly (`pglite.wasm`, 9 MB, beside the package's entry), for
 * `openPgliteFolder` to hand to `PGlite.create` instead of PGlite reading and compiling it itself.
 * main.ts calls it before the rest of the code loads: V8 validates the module on a background
 * thread, and started this early that is done while the code loads, instead of being waited for
 * once PGlite's own open (held back by that load) gets to it (docs/PERFORMANCE.md, "Later start,
 * seventh round"). Resolves to undefined when the file cannot be read or compiled: PGlite then
 * loads it as usual, and reports the problem itself.
 */
export function compilePgliteWasm(): Promise<CompiledWasm | undefined> {
  try {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    return WebAssembly.compile(readFileSync(path.join(path.dirname(entry), 'pglite.wasm'))).catch(() => undefined);
  } catch {
    return Promise.resolve(undefined);
  }
}
