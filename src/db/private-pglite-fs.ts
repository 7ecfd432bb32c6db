import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type EmscriptenOptions = Parameters<NodeFS['init']>[1];
type Mod = Parameters<Extract<NonNullable<EmscriptenOptions['preRun']>, unknown[]>[number]>[0];
type SetAttr = (target: unknown, attr: { mode?: number } | undefined) => void;
type Ops = { setattr?: SetAttr } | undefined;

/** The group and other bits: what a private file or folder never has. */
const SHARED_BITS = 0o077;

/**
 * PGlite's folder mounted as its own `NodeFS` does, except that every mode PGlite sets on a file
 * loses its group and other bits. Emscripten creates a file under the process umask (0077 here)
 * but then chmods it to the mode asked for less Emscripten's own umask (0022), out of our reach:
 * the relcache files PostgreSQL writes at every start (`pg_internal.init`) came out 0644. With the
 * bits cleared where Emscripten applies a mode, what PGlite writes is private as it is written and
 * a start need not walk the folder (`openPgliteFolder`).
 */
export class PrivateNodeFS extends NodeFS {
  /**
   * Whether the mode hook is in place, once the open has run. False means a PGlite release whose
   * Emscripten file system no longer looks as expected: the caller walks the folder instead.
   */
  hooked = false;

  override async init(pg: PGlite, opts: EmscriptenOptions) {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = [emscriptenOpts.preRun ?? []].flat();
    // After NodeFS's own preRun (the mount), before PostgreSQL runs.
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...preRun, (mod: Mod) => this.hook(mod)] } };
  }

  private hook(mod: Mod) {
    const nodefs = mod.NODEFS as unknown as { node_ops?: Ops; stream_ops?: Ops };
    // chmod by path and by open file (fchmod).
    const tables = [nodefs.node_ops, nodefs.stream_ops];
    if (!tables.every((ops) => typeof ops?.setattr === 'function')) return;
    for (const ops of tables as { setattr: SetAttr }[]) {
      const setattr = ops.setattr;
      ops.setattr = (target, attr) => setattr.call(ops, target, attr?.mode === undefined || attr.mode === null ? attr : { ...attr, mode: attr.mode & ~SHARED_BITS });
    }
    this.hooked = true;
  }
}
