CREATE TABLE "subscription_list_versions" (
	"account_id" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
