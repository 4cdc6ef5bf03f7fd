CREATE TYPE "public"."guardian_invitation_source" AS ENUM('API', 'ROSTER');--> statement-breakpoint
CREATE TABLE "guardian_invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"student_user_id" uuid NOT NULL,
	"email" text NOT NULL,
	"email_canonical" text NOT NULL,
	"relationship" "guardian_relationship" NOT NULL,
	"status" "invitation_status" DEFAULT 'PENDING' NOT NULL,
	"source" "guardian_invitation_source" NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_by_user_id" uuid,
	"answered_at" timestamp with time zone,
	"guardian_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "guardian_invitations" ADD CONSTRAINT "guardian_invitations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "guardian_invitations" ADD CONSTRAINT "guardian_invitations_student_user_id_users_id_fk" FOREIGN KEY ("student_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "guardian_invitations" ADD CONSTRAINT "guardian_invitations_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "guardian_invitations" ADD CONSTRAINT "guardian_invitations_guardian_user_id_users_id_fk" FOREIGN KEY ("guardian_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "guardian_invitations_pending_key" ON "guardian_invitations" USING btree ("tenant_id","student_user_id","email_canonical") WHERE "guardian_invitations"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "guardian_invitations_tenant_id_idx" ON "guardian_invitations" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE INDEX "guardian_invitations_email_canonical_idx" ON "guardian_invitations" USING btree ("email_canonical");--> statement-breakpoint
CREATE INDEX "guardian_invitations_student_idx" ON "guardian_invitations" USING btree ("student_user_id");