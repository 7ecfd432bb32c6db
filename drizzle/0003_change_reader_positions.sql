CREATE TABLE "change_reader_positions" (
	"reader" text PRIMARY KEY NOT NULL,
	"last_change_id" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
