// `node dist/db/build-image.js` (run by bin/ensure-build.js after compiling): (re)makes
// dist/pglite-image, the initialised and migrated PGlite folder a first start copies, when the
// PGlite release, the migrations or the settings changed since it was made.
import { openDatabase, PGLITE_SETTINGS } from './client.js';
import { migrate } from './migrate.js';
import { pgliteImageStale, writePgliteImage } from './pglite-image.js';

if (await pgliteImageStale(PGLITE_SETTINGS)) {
  process.stderr.write('Preparing the embedded database image (once per PGlite release and migration)…\n');
  await writePgliteImage(PGLITE_SETTINGS, async (folder) => {
    const database = await openDatabase({ dataDir: folder, fromImage: false });
    await migrate(database);
    await database.close();
  });
}
