CREATE TABLE "catalog_sync_status" (
	"id" text PRIMARY KEY NOT NULL,
	"failing_since" timestamp with time zone,
	"last_error" text,
	"last_success_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
