-- Room on each page for a row's next version. The catalog refresh rewrites rows whose volumes or
-- prices moved, every pass, and the engine rewrites token_prices every few seconds; none of those
-- columns is indexed, so PostgreSQL can keep the new version on the row's own page (a HOT update:
-- no index entry at all) when the page has room, and a later read of the page frees the old
-- versions without a vacuum, which PGlite never runs. Full pages (fillfactor 100) sent about half
-- of the catalog's updates to new pages with new entries in every index, trigram GIN ones included:
-- at 7,833 markets the catalog took 103 MB after a few passes against 56 MB with room, and
-- token_prices settled at 18 MB for 2,000 tokens against 2 MB (docs/decisions.md "Room for HOT
-- updates"). Pages written from now on keep 15% free; existing pages get it as their rows move.
ALTER TABLE "catalog_markets" SET (fillfactor = 85);--> statement-breakpoint
ALTER TABLE "catalog_events" SET (fillfactor = 85);--> statement-breakpoint
ALTER TABLE "token_prices" SET (fillfactor = 85);
