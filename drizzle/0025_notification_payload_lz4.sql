-- A price notification's payload carries the venue's message (polymarketSourceEvent) and is stored
-- compressed (over ~2 kB). With the default pglz, compressing it was 8 % of PostgreSQL's CPU at
-- 1,000 firings/s (perf of the backends, docs/PERFORMANCE.md "Delivery", "Firing write on
-- PostgreSQL"); lz4 compresses several times faster for a similar size. Only where the server was
-- built with lz4 (PostgreSQL packages are; PGlite is not and keeps pglz). Rows written before keep
-- their pglz values, which read as before.
DO $$
BEGIN
  IF 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]) THEN
    ALTER TABLE notifications ALTER COLUMN payload SET COMPRESSION lz4;
  END IF;
END $$;
