DROP INDEX "users_email_lower_key";--> statement-breakpoint
ALTER TABLE "tenant_memberships" ADD COLUMN "invited_display_name" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_canonical" text;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_email_canonical_key" UNIQUE("email_canonical");--> statement-breakpoint
-- A name given when inviting by email was stored on the user, where every tenant saw it. It now
-- belongs to the tenant's membership, and stays the user's only once the person signs in with it.
UPDATE "tenant_memberships" SET "invited_display_name" = "users"."display_name"
  FROM "users" WHERE "users"."id" = "tenant_memberships"."user_id" AND "users"."subject" IS NULL;--> statement-breakpoint
UPDATE "users" SET "display_name" = NULL WHERE "subject" IS NULL;
