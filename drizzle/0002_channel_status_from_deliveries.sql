CREATE INDEX "notifications_subscription_idx" ON "notifications" USING btree ("subscription_id","id");--> statement-breakpoint
ALTER TABLE "subscription_channels" DROP COLUMN "status";