// `node dist/db/build-image.js` (run by bin/ensure-build.js after compiling): (re)makes
// dist/pglite-image, the initialised and migrated PGlite folder a first start copies, when the
// PGlite release, the migrations or the recipe below changed since it was made.
import { sql } from 'drizzle-orm';
import { openDatabase, PGLITE_INITDB_ARGS, PGLITE_SETTINGS } from './client.js';
import { migrate } from './migrate.js';
import { openPgliteFolder } from './pglite-folder.js';
import { pgliteImageStale, writePgliteImage } from './pglite-image.js';

// template0 and template1 exist only for CREATE DATABASE to copy. The service lives in the one
// database PGlite opens (`postgres`) and never creates another (migrations make schemas, tables
// and extensions inside it), so the image goes without them: they were 600 of its 1,127 files
// and 14 MB that every first start copied (docs/PERFORMANCE.md, Start time). A template must stop
// being one before it can be dropped; each statement runs on its own (DROP DATABASE refuses a
// transaction block). Folders made from earlier images, or by initdb without the image, keep them.
const DROP_TEMPLATES = ['template0', 'template1'].flatMap((name) => [`alter database ${name} is_template false`, `drop database ${name}`]);

// For the build's initdb and open (a start runs with PGLITE_SETTINGS' WAL sizes over what these
// write into the image's postgresql.conf): with WAL sizes this small each checkpoint removes the
// segments behind it instead of keeping them for reuse. Kept, they were 4–6 of the image's 1 MB
// segments, which every first start would write out again.
const BUILD_SETTINGS = ['min_wal_size=2MB', 'max_wal_size=2MB'];

/** Everything besides the PGlite release and the migrations that shapes the image (its key). */
const recipe = [...PGLITE_SETTINGS, ...PGLITE_INITDB_ARGS, ...DROP_TEMPLATES, ...BUILD_SETTINGS];

if (await pgliteImageStale(recipe)) {
  process.stderr.write('Preparing the embedded database image (once per PGlite release and migration)…\n');
  await writePgliteImage(recipe, async (folder) => {
    const database = await openDatabase({ dataDir: folder, pglite: await openPgliteFolder(folder, false, undefined, BUILD_SETTINGS) });
    await migrate(database);
    for (const statement of DROP_TEMPLATES) await database.rows(sql.raw(statement));
    await database.close();
  });
}
