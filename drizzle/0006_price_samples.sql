CREATE TABLE "price_samples" (
	"token_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"price" double precision NOT NULL,
	CONSTRAINT "price_samples_token_id_minute_pk" PRIMARY KEY("token_id","minute")
);
--> statement-breakpoint
CREATE INDEX "price_samples_minute_idx" ON "price_samples" USING btree ("minute");