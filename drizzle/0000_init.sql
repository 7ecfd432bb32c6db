CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text,
	"is_admin" boolean DEFAULT false NOT NULL,
	"webhook_secret" text NOT NULL,
	"discord_user_id" text,
	"telegram_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_discord_user_id_unique" UNIQUE("discord_user_id"),
	CONSTRAINT "accounts_telegram_user_id_unique" UNIQUE("telegram_user_id")
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "catalog_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"event_id" text NOT NULL,
	"market_id" text,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "catalog_event_tags" (
	"event_id" text NOT NULL,
	"tag_id" text NOT NULL,
	CONSTRAINT "catalog_event_tags_event_id_tag_id_pk" PRIMARY KEY("event_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "catalog_events" (
	"id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"image" text DEFAULT '' NOT NULL,
	"icon" text DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"closed" boolean DEFAULT false NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"neg_risk" boolean DEFAULT false NOT NULL,
	"start_date" timestamp with time zone,
	"end_date" timestamp with time zone,
	"volume" double precision DEFAULT 0 NOT NULL,
	"volume_24hr" double precision DEFAULT 0 NOT NULL,
	"liquidity" double precision DEFAULT 0 NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "catalog_markets" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"question" text NOT NULL,
	"slug" text DEFAULT '' NOT NULL,
	"group_item_title" text DEFAULT '' NOT NULL,
	"condition_id" text DEFAULT '' NOT NULL,
	"outcomes" jsonb NOT NULL,
	"outcome_prices" jsonb NOT NULL,
	"clob_token_ids" jsonb NOT NULL,
	"yes_token_id" text NOT NULL,
	"image" text DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"closed" boolean DEFAULT false NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"volume" double precision DEFAULT 0 NOT NULL,
	"volume_24hr" double precision DEFAULT 0 NOT NULL,
	"liquidity" double precision DEFAULT 0 NOT NULL,
	"best_bid" double precision,
	"best_ask" double precision,
	"last_trade_price" double precision,
	"end_date" timestamp with time zone,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "catalog_tags" (
	"id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"label" text NOT NULL,
	CONSTRAINT "catalog_tags_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "market_samples" (
	"market_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"volume" double precision,
	"liquidity" double precision,
	"price" double precision,
	CONSTRAINT "market_samples_market_id_at_pk" PRIMARY KEY("market_id","at")
);
--> statement-breakpoint
CREATE TABLE "token_prices" (
	"token_id" text PRIMARY KEY NOT NULL,
	"price" double precision NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "watchlist_events" (
	"watchlist_id" text NOT NULL,
	"event_id" text NOT NULL,
	"auto_fetch" boolean DEFAULT true NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "watchlist_events_watchlist_id_event_id_pk" PRIMARY KEY("watchlist_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "watchlist_markets" (
	"watchlist_id" text NOT NULL,
	"event_id" text NOT NULL,
	"market_id" text NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "watchlist_markets_watchlist_id_event_id_market_id_pk" PRIMARY KEY("watchlist_id","event_id","market_id")
);
--> statement-breakpoint
CREATE TABLE "watchlists" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"query" jsonb NOT NULL,
	"auto_add_matching_events" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_channels" (
	"subscription_id" text NOT NULL,
	"position" integer NOT NULL,
	"type" text NOT NULL,
	"settings" jsonb,
	"status" text
);
--> statement-breakpoint
CREATE TABLE "subscription_market_state" (
	"subscription_id" text NOT NULL,
	"market_id" text NOT NULL,
	"last_fired_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"watchlist_id" text NOT NULL,
	"scope" text NOT NULL,
	"event_id" text,
	"market_id" text,
	"type" text NOT NULL,
	"threshold_percent" double precision,
	"trigger_type" text NOT NULL,
	"trigger_interval" text,
	"expires_at" timestamp with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"status_reason" text NOT NULL,
	"trigger_count" integer DEFAULT 0 NOT NULL,
	"last_triggered_at" timestamp with time zone,
	"revision" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"notification_id" text NOT NULL,
	"position" integer NOT NULL,
	"channel_type" text NOT NULL,
	"settings" jsonb,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"status_code" integer,
	"error" text,
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "demo_webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"url" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"subscription_id" text,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"dedupe_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"read_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "catalog_event_tags" ADD CONSTRAINT "catalog_event_tags_event_id_catalog_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."catalog_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "catalog_event_tags" ADD CONSTRAINT "catalog_event_tags_tag_id_catalog_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."catalog_tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "catalog_markets" ADD CONSTRAINT "catalog_markets_event_id_catalog_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."catalog_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlist_events" ADD CONSTRAINT "watchlist_events_watchlist_id_watchlists_id_fk" FOREIGN KEY ("watchlist_id") REFERENCES "public"."watchlists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlist_events" ADD CONSTRAINT "watchlist_events_event_id_catalog_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."catalog_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlist_markets" ADD CONSTRAINT "watchlist_markets_watchlist_id_watchlists_id_fk" FOREIGN KEY ("watchlist_id") REFERENCES "public"."watchlists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlist_markets" ADD CONSTRAINT "watchlist_markets_market_id_catalog_markets_id_fk" FOREIGN KEY ("market_id") REFERENCES "public"."catalog_markets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchlists" ADD CONSTRAINT "watchlists_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_channels" ADD CONSTRAINT "subscription_channels_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_market_state" ADD CONSTRAINT "subscription_market_state_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_watchlist_id_watchlists_id_fk" FOREIGN KEY ("watchlist_id") REFERENCES "public"."watchlists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_notification_id_notifications_id_fk" FOREIGN KEY ("notification_id") REFERENCES "public"."notifications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "demo_webhooks" ADD CONSTRAINT "demo_webhooks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_tokens_account_idx" ON "api_tokens" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "catalog_changes_event_idx" ON "catalog_changes" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "catalog_event_tags_tag_idx" ON "catalog_event_tags" USING btree ("tag_id");--> statement-breakpoint
CREATE INDEX "catalog_events_slug_idx" ON "catalog_events" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "catalog_events_open_idx" ON "catalog_events" USING btree ("closed","volume_24hr");--> statement-breakpoint
CREATE INDEX "catalog_markets_event_idx" ON "catalog_markets" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "catalog_markets_token_idx" ON "catalog_markets" USING btree ("yes_token_id");--> statement-breakpoint
CREATE INDEX "watchlist_events_event_idx" ON "watchlist_events" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "watchlist_markets_market_idx" ON "watchlist_markets" USING btree ("market_id");--> statement-breakpoint
CREATE INDEX "watchlists_account_idx" ON "watchlists" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_channels_pk" ON "subscription_channels" USING btree ("subscription_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_market_state_pk" ON "subscription_market_state" USING btree ("subscription_id","market_id");--> statement-breakpoint
CREATE INDEX "subscriptions_account_idx" ON "subscriptions" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "subscriptions_watchlist_idx" ON "subscriptions" USING btree ("watchlist_id");--> statement-breakpoint
CREATE UNIQUE INDEX "deliveries_notification_channel_idx" ON "deliveries" USING btree ("notification_id","position");--> statement-breakpoint
CREATE INDEX "deliveries_due_idx" ON "deliveries" USING btree ("status","due_at");--> statement-breakpoint
CREATE INDEX "delivery_attempts_delivery_idx" ON "delivery_attempts" USING btree ("delivery_id");--> statement-breakpoint
CREATE INDEX "demo_webhooks_account_idx" ON "demo_webhooks" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_dedupe_idx" ON "notifications" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "notifications_account_idx" ON "notifications" USING btree ("account_id","id");