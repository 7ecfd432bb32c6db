// `npm run bench -- <name> [--option=value ...]`: one entry per bench, loaded on demand.
const benches: Record<string, (args: string[]) => Promise<void>> = {
  engine: async (args) => {
    const bench = await import('./engine.js');
    await bench.runEngineBench(bench.engineBenchOptions(args));
  },
  delivery: async (args) => {
    const bench = await import('./delivery.js');
    await bench.runDeliveryBench(bench.deliveryBenchOptions(args));
  },
  ingest: async (args) => {
    const bench = await import('./ingest.js');
    await bench.runIngestBench(bench.ingestBenchOptions(args));
  },
  start: async (args) => (await import('./start.js')).runStartBench(args),
  search: async (args) => (await import('./search.js')).runSearchBench(args),
  sync: async (args) => (await import('./sync.js')).runSyncBench(args),
  wal: async (args) => (await import('./wal.js')).runWalBench(args),
  rest: async (args) => {
    const bench = await import('./rest.js');
    await bench.runRestBench(bench.restBenchOptions(args));
  },
  memory: async (args) => (await import('./memory.js')).runMemoryBench(args),
};

const [name, ...args] = process.argv.slice(2);
const run = name === undefined ? undefined : benches[name];
if (run === undefined) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join('|')}> [--option=value ...]`);
  process.exit(2);
}
await run(args);
