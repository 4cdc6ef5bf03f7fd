CREATE TYPE "public"."roster_import_mode" AS ENUM('add', 'sync');--> statement-breakpoint
CREATE TYPE "public"."roster_import_status" AS ENUM('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED');--> statement-breakpoint
CREATE TABLE "roster_imports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"actor_user_id" uuid,
	"mode" "roster_import_mode" NOT NULL,
	"dry_run" boolean NOT NULL,
	"status" "roster_import_status" NOT NULL,
	"rows_read" integer DEFAULT 0 NOT NULL,
	"rows_total" integer DEFAULT 0 NOT NULL,
	"summary" jsonb NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"warnings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"failure" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "roster_imports_tenant_id_idx" ON "roster_imports" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE INDEX "roster_imports_unfinished_idx" ON "roster_imports" USING btree ("heartbeat_at") WHERE "roster_imports"."status" in ('QUEUED', 'RUNNING');--> statement-breakpoint
-- A tenant's imports go with it. A trigger, not a foreign key: inserting a row that references the
-- tenant would take a KEY SHARE lock on it, and wait for the lock of the import that runs there.
CREATE FUNCTION "roster_imports_of_deleted_tenant"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "roster_imports" WHERE "tenant_id" = OLD."id";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "tenants_roster_imports" AFTER DELETE ON "tenants"
FOR EACH ROW EXECUTE FUNCTION "roster_imports_of_deleted_tenant"();
