ALTER TABLE "subscription_channels" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscription_channels" ADD COLUMN "failed_notifications" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_channels" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "subscription_channels" ADD COLUMN "warned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscription_channels" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscription_channels" ADD COLUMN "disabled_reason" text;