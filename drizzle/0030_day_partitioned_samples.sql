-- The two sample tables become one partition per UTC day (src/db/day-partitions.ts). Their history
-- used to be deleted row by row, and PGlite never vacuums: the space was never reused and the
-- tables grew on disk for good. A day past retention is now one DROP TABLE, and nothing needs the
-- `at`/`minute` indexes any more, which served only that pruning (docs/decisions.md).
--
-- Rows already stored are not copied: the old table is attached as it is, as the partition of
-- everything before tomorrow (UTC), named `<table>_before_<tomorrow>`, and is dropped whole once
-- that day is past retention. Only rows from tomorrow on, which a clock ahead may have written,
-- move into day partitions. A new install's empty tables are simply replaced. The attach reads the
-- old table once to check its range (no constraint proves it): once per upgrade, at its start.
DO $$
DECLARE
  t text;
  k text;
  pk text;
  pk_columns text;
  bound timestamptz := (date_trunc('day', now() at time zone 'UTC') + interval '1 day') at time zone 'UTC';
  old_name text;
  day timestamptz;
  has_rows boolean;
BEGIN
  FOREACH t IN ARRAY ARRAY['market_samples', 'price_samples'] LOOP
    k := CASE t WHEN 'market_samples' THEN 'at' ELSE 'minute' END;
    pk := CASE t WHEN 'market_samples' THEN 'market_samples_market_id_at_pk' ELSE 'price_samples_token_id_minute_pk' END;
    pk_columns := CASE t WHEN 'market_samples' THEN 'market_id, at' ELSE 'token_id, minute' END;
    old_name := t || '_before_' || to_char(bound at time zone 'UTC', 'YYYYMMDD');
    EXECUTE format('ALTER TABLE %I RENAME TO %I', t, old_name);
    EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', old_name, pk, old_name || '_pk');
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS) PARTITION BY RANGE (%I)', t, old_name, k);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (%s)', t, pk, pk_columns);
    FOR day IN EXECUTE format('SELECT DISTINCT date_trunc(''day'', %I at time zone ''UTC'') at time zone ''UTC'' FROM %I WHERE %I >= $1 ORDER BY 1', k, old_name, k) USING bound LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
        t || '_d' || to_char(day at time zone 'UTC', 'YYYYMMDD'), t, day, day + interval '24 hours');
    END LOOP;
    EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE %I >= $1', t, old_name, k) USING bound;
    EXECUTE format('DELETE FROM %I WHERE %I >= $1', old_name, k) USING bound;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', old_name) INTO has_rows;
    IF has_rows THEN
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', t, old_name, bound);
    ELSE
      EXECUTE format('DROP TABLE %I', old_name);
    END IF;
  END LOOP;
END $$;--> statement-breakpoint
-- After the move above, which found the rows from tomorrow on through them; gone with an empty old table.
DROP INDEX IF EXISTS "market_samples_at_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "price_samples_minute_idx";
