DROP INDEX "tenant_memberships_tenant_id_idx";--> statement-breakpoint
ALTER TABLE "tenant_memberships" DROP CONSTRAINT "tenant_memberships_pkey";--> statement-breakpoint
ALTER TABLE "tenant_memberships" ADD CONSTRAINT "tenant_memberships_pkey" PRIMARY KEY("tenant_id","id");--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "users_email_trgm_idx" ON "users" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_display_name_trgm_idx" ON "users" USING gin ("display_name" gin_trgm_ops);
