CREATE TABLE "audit_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid,
	"sequence" bigint NOT NULL,
	"action" text NOT NULL,
	"actor_user_id" uuid,
	"actor_subject" text,
	"actor_is_super_admin" boolean NOT NULL,
	"target_type" text NOT NULL,
	"target_id" uuid NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"request_id" text,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_sequences" (
	"scope" uuid PRIMARY KEY NOT NULL,
	"last" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_tenant_sequence_key" ON "audit_events" USING btree ("tenant_id","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_platform_sequence_key" ON "audit_events" USING btree ("sequence") WHERE "audit_events"."tenant_id" is null;--> statement-breakpoint
CREATE INDEX "audit_events_occurred_at_id_idx" ON "audit_events" USING btree ("occurred_at","id");--> statement-breakpoint
CREATE INDEX "audit_events_actor_user_id_idx" ON "audit_events" USING btree ("actor_user_id");--> statement-breakpoint
CREATE INDEX "audit_events_target_id_idx" ON "audit_events" USING btree ("target_id");--> statement-breakpoint
-- Append-only: the database itself refuses to change or remove an event. Only a transaction that
-- says it maintains the trail (SET LOCAL app.audit_maintenance = 'on': the retention purge, the
-- erasure of a user) may, and even then an UPDATE may rewrite only the personal data in an event
-- (its before/after and the actor's subject), never what happened, to what, when, or its number.
CREATE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('app.audit_maintenance', true), '') <> 'on' THEN
    RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = '55000';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  IF (NEW.id, NEW.tenant_id, NEW.sequence, NEW.action, NEW.actor_user_id, NEW.actor_is_super_admin,
      NEW.target_type, NEW.target_id, NEW.request_id, NEW.occurred_at)
     IS DISTINCT FROM (OLD.id, OLD.tenant_id, OLD.sequence, OLD.action, OLD.actor_user_id,
      OLD.actor_is_super_admin, OLD.target_type, OLD.target_id, OLD.request_id, OLD.occurred_at) THEN
    RAISE EXCEPTION 'audit_events: only before, after and actor_subject may be rewritten' USING ERRCODE = '55000';
  END IF;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_events_append_only" BEFORE UPDATE OR DELETE ON "audit_events"
FOR EACH ROW EXECUTE FUNCTION "audit_events_append_only"();--> statement-breakpoint
CREATE FUNCTION "audit_events_no_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: TRUNCATE refused' USING ERRCODE = '55000';
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
FOR EACH STATEMENT EXECUTE FUNCTION "audit_events_no_truncate"();
