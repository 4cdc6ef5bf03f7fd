ALTER TABLE "tenant_memberships" ADD COLUMN "search" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- What member search matches: the user's address and name, and the tenant's name for them, one
-- per line. Kept here, in the database, so that every writer (the service, a data migration, a
-- bulk load) keeps it right.
CREATE FUNCTION "membership_search_text"("email" text, "display_name" text, "invited_display_name" text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce($1, '') || E'\n' || coalesce($2, '') || E'\n' || coalesce($3, '')
$$;--> statement-breakpoint
CREATE FUNCTION "tenant_memberships_set_search"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT membership_search_text(u.email, u.display_name, NEW.invited_display_name) INTO NEW.search
  FROM users u WHERE u.id = NEW.user_id;
  NEW.search := coalesce(NEW.search, '');
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "tenant_memberships_search" BEFORE INSERT OR UPDATE OF "user_id", "invited_display_name"
ON "tenant_memberships" FOR EACH ROW EXECUTE FUNCTION "tenant_memberships_set_search"();--> statement-breakpoint
CREATE FUNCTION "users_refresh_membership_search"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tenant_memberships
  SET search = membership_search_text(NEW.email, NEW.display_name, invited_display_name)
  WHERE user_id = NEW.id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "users_membership_search" AFTER UPDATE OF "email", "display_name" ON "users" FOR EACH ROW
WHEN (OLD.email IS DISTINCT FROM NEW.email OR OLD.display_name IS DISTINCT FROM NEW.display_name)
EXECUTE FUNCTION "users_refresh_membership_search"();--> statement-breakpoint
UPDATE "tenant_memberships" AS m
SET "search" = membership_search_text(u.email, u.display_name, m.invited_display_name)
FROM "users" AS u WHERE u.id = m.user_id;--> statement-breakpoint
CREATE INDEX "tenant_memberships_search_trgm_idx" ON "tenant_memberships" USING gin ("search" gin_trgm_ops);
