export * from './client.js';
export { migrate, migrationsApplied, MIGRATIONS_FOLDER } from './migrate.js';
export * as schema from './schema/index.js';
