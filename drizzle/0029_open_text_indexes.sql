-- People-search reads open rows only (src/services/search/find.ts), and closed events and markets
-- stay stored for good: its trigram indexes now hold the open rows' text alone (null for a closed
-- row), so a search's cost follows the open catalog, not how many rows closed over the months. An
-- expression rather than a partial index: the planner answered a `not closed` predicate with a
-- btree on `closed` and filtered every open row (docs/decisions.md).
DROP INDEX "catalog_events_title_trgm_idx";--> statement-breakpoint
DROP INDEX "catalog_markets_question_trgm_idx";--> statement-breakpoint
CREATE INDEX "catalog_events_title_trgm_idx" ON "catalog_events" USING gin ((case when closed then null else lower(title) end) gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "catalog_markets_question_trgm_idx" ON "catalog_markets" USING gin ((case when closed then null else lower(question) end) gin_trgm_ops);