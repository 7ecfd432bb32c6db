CREATE TABLE "delivery_bursts" (
	"destination" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "batch_key" text;--> statement-breakpoint
ALTER TABLE "delivery_bursts" ADD CONSTRAINT "delivery_bursts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_batch_idx" ON "deliveries" USING btree ("batch_key") WHERE batch_key is not null;