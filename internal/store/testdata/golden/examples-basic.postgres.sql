CREATE TABLE IF NOT EXISTS "app_tasks" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "is_done" BOOLEAN,
  "due_at" TIMESTAMPTZ,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_app_tasks_team_created" ON "app_tasks" ("team_id", "created_at", "id");

DROP TRIGGER IF EXISTS "st_app_tasks_search_ins" ON "app_tasks";

DROP FUNCTION IF EXISTS "st_app_tasks_search_ins"();

DROP TRIGGER IF EXISTS "st_app_tasks_search_upd" ON "app_tasks";

DROP FUNCTION IF EXISTS "st_app_tasks_search_upd"();

DROP TRIGGER IF EXISTS "st_app_tasks_search_del" ON "app_tasks";

DROP FUNCTION IF EXISTS "st_app_tasks_search_del"();

DROP TRIGGER IF EXISTS "st_app_tasks_search_trn" ON "app_tasks";

DROP FUNCTION IF EXISTS "st_app_tasks_search_trn"();

CREATE TABLE IF NOT EXISTS "<schema>"."sx_app_tasks_search" ("team_id" TEXT COLLATE "C" NOT NULL, "id" TEXT COLLATE "C" NOT NULL, "created_at" TIMESTAMPTZ NOT NULL, "doc" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("team_id", "id"));

CREATE OR REPLACE FUNCTION "<schema>"."st_app_tasks_search_ins"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN INSERT INTO "<schema>"."sx_app_tasks_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '')) FROM kit_new AS r; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_app_tasks_search_upd"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN UPDATE "<schema>"."sx_app_tasks_search" SET "team_id" = NEW."team_id", "id" = NEW."id", "created_at" = NEW."created_at", "doc" = lower(coalesce(NEW."title", '')) WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_app_tasks_search_del"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN DELETE FROM "<schema>"."sx_app_tasks_search" WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_app_tasks_search_trn"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN TRUNCATE "<schema>"."sx_app_tasks_search"; RETURN NULL; END $kit$;

CREATE TRIGGER "st_app_tasks_search_ins" AFTER INSERT ON "app_tasks" REFERENCING NEW TABLE AS kit_new FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_app_tasks_search_ins"();

CREATE TRIGGER "st_app_tasks_search_upd" AFTER UPDATE OF "team_id", "id", "created_at", "title" ON "app_tasks" FOR EACH ROW WHEN (OLD."team_id" IS DISTINCT FROM NEW."team_id" OR OLD."id" IS DISTINCT FROM NEW."id" OR OLD."created_at" IS DISTINCT FROM NEW."created_at" OR OLD."title" IS DISTINCT FROM NEW."title") EXECUTE FUNCTION "<schema>"."st_app_tasks_search_upd"();

CREATE TRIGGER "st_app_tasks_search_del" AFTER DELETE ON "app_tasks" FOR EACH ROW EXECUTE FUNCTION "<schema>"."st_app_tasks_search_del"();

CREATE TRIGGER "st_app_tasks_search_trn" AFTER TRUNCATE ON "app_tasks" FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_app_tasks_search_trn"();

DROP INDEX IF EXISTS "<schema>"."sg_app_tasks_search";

TRUNCATE "<schema>"."sx_app_tasks_search";

INSERT INTO "<schema>"."sx_app_tasks_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '')) FROM "app_tasks" AS r;

CREATE INDEX IF NOT EXISTS "sg_app_tasks_search" ON "<schema>"."sx_app_tasks_search" USING gin ("doc" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL,
	xid xid8 NOT NULL DEFAULT pg_current_xact_id());

ALTER TABLE kit_row_counts ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "app_tasks" GROUP BY "team_id";

