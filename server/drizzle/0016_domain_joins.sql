CREATE TABLE "domain_joins" (
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"domain_id" uuid NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "domain_joins_pkey" PRIMARY KEY("tenant_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "join_requests" ADD COLUMN "domain_id" uuid;--> statement-breakpoint
ALTER TABLE "domain_joins" ADD CONSTRAINT "domain_joins_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domain_joins" ADD CONSTRAINT "domain_joins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "domain_joins_user_id_idx" ON "domain_joins" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "join_requests" ADD CONSTRAINT "join_requests_domain_id_tenant_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."tenant_domains"("id") ON DELETE set null ON UPDATE no action;