ALTER TABLE "catalog_events" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', coalesce(title, '') || ' ' || coalesce(description, ''))) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "catalog_events_search_idx" ON "catalog_events" USING gin ("search");--> statement-breakpoint
CREATE INDEX "market_samples_at_idx" ON "market_samples" USING btree ("at");