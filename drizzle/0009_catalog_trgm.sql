-- pg_trgm ships with PostgreSQL (contrib) and PGlite (loaded at open, src/db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "catalog_events_title_trgm_idx" ON "catalog_events" USING gin (lower("title") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "catalog_markets_question_trgm_idx" ON "catalog_markets" USING gin (lower("question") gin_trgm_ops);