-- The catalog sync reads the open rows each pass (src/catalog/state.ts). Closed events and markets
-- stay for good, so a pass's read must follow what is open, not every row ever stored.
CREATE INDEX "catalog_events_open_id_idx" ON "catalog_events" USING btree ("id") WHERE not closed;--> statement-breakpoint
CREATE INDEX "catalog_markets_open_id_idx" ON "catalog_markets" USING btree ("id") WHERE not closed;