-- The catalog's first fill is written in batches (src/catalog/first-fill.ts); a fill that stopped
-- half-way leaves rows behind, so "first fill" can no longer be read off an empty catalog. A
-- catalog that has rows when this runs was filled by the one-transaction fill before it.
ALTER TABLE "catalog_sync_status" ADD COLUMN "filled_at" timestamp with time zone;--> statement-breakpoint
INSERT INTO "catalog_sync_status" ("id", "filled_at", "updated_at")
  SELECT 'catalog', now(), now() WHERE EXISTS (SELECT 1 FROM "catalog_events")
  ON CONFLICT ("id") DO UPDATE SET "filled_at" = now();
