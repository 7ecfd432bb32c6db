CREATE TABLE "closing_soon_marks" (
	"subscription_id" text NOT NULL,
	"market_id" text NOT NULL,
	"end_date" timestamp with time zone NOT NULL,
	"fired_at" timestamp with time zone NOT NULL,
	CONSTRAINT "closing_soon_marks_subscription_id_market_id_pk" PRIMARY KEY("subscription_id","market_id")
);
--> statement-breakpoint
ALTER TABLE "catalog_changes" ADD COLUMN "details" jsonb;--> statement-breakpoint
ALTER TABLE "catalog_markets" ADD COLUMN "uma_resolution_status" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "catalog_markets" ADD COLUMN "resolved_outcome" text;--> statement-breakpoint
ALTER TABLE "closing_soon_marks" ADD CONSTRAINT "closing_soon_marks_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;