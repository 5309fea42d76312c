CREATE TABLE IF NOT EXISTS "shop_parts" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "sku" TEXT COLLATE "C",
  "code" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C",
  "sku__key" TEXT COLLATE "C",
  "code__key" TEXT COLLATE "C",
  "sku__ukey" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_shop_parts_team_created" ON "shop_parts" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_parts_sku" ON "shop_parts" ("team_id", "sku");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_parts_sku_ukey" ON "shop_parts" ("team_id", "sku__ukey");

CREATE INDEX IF NOT EXISTS "ix_shop_parts_sku_sort" ON "shop_parts" ("team_id" NULLS FIRST, "sku__key" NULLS FIRST, "sku" NULLS FIRST, "id" NULLS FIRST);

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_parts_code" ON "shop_parts" ("team_id", "code");

CREATE INDEX IF NOT EXISTS "ix_shop_parts_code_sort" ON "shop_parts" ("team_id" NULLS FIRST, "code__key" NULLS FIRST, "code" NULLS FIRST, "id" NULLS FIRST);

DROP TRIGGER IF EXISTS "st_shop_parts_search_ins" ON "shop_parts";

DROP FUNCTION IF EXISTS "st_shop_parts_search_ins"();

DROP TRIGGER IF EXISTS "st_shop_parts_search_upd" ON "shop_parts";

DROP FUNCTION IF EXISTS "st_shop_parts_search_upd"();

DROP TRIGGER IF EXISTS "st_shop_parts_search_del" ON "shop_parts";

DROP FUNCTION IF EXISTS "st_shop_parts_search_del"();

DROP TRIGGER IF EXISTS "st_shop_parts_search_trn" ON "shop_parts";

DROP FUNCTION IF EXISTS "st_shop_parts_search_trn"();

CREATE TABLE IF NOT EXISTS "<schema>"."sx_shop_parts_search" ("team_id" TEXT COLLATE "C" NOT NULL, "id" TEXT COLLATE "C" NOT NULL, "created_at" TIMESTAMPTZ NOT NULL, "doc" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("team_id", "id"));

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_parts_search_ins"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN INSERT INTO "<schema>"."sx_shop_parts_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."sku", '') || E'\x1f' || coalesce(r."code", '')) FROM kit_new AS r; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_parts_search_upd"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN UPDATE "<schema>"."sx_shop_parts_search" SET "team_id" = NEW."team_id", "id" = NEW."id", "created_at" = NEW."created_at", "doc" = lower(coalesce(NEW."title", '') || E'\x1f' || coalesce(NEW."sku", '') || E'\x1f' || coalesce(NEW."code", '')) WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_parts_search_del"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN DELETE FROM "<schema>"."sx_shop_parts_search" WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_parts_search_trn"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN TRUNCATE "<schema>"."sx_shop_parts_search"; RETURN NULL; END $kit$;

CREATE TRIGGER "st_shop_parts_search_ins" AFTER INSERT ON "shop_parts" REFERENCING NEW TABLE AS kit_new FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_shop_parts_search_ins"();

CREATE TRIGGER "st_shop_parts_search_upd" AFTER UPDATE OF "team_id", "id", "created_at", "title", "sku", "code" ON "shop_parts" FOR EACH ROW WHEN (OLD."team_id" IS DISTINCT FROM NEW."team_id" OR OLD."id" IS DISTINCT FROM NEW."id" OR OLD."created_at" IS DISTINCT FROM NEW."created_at" OR OLD."title" IS DISTINCT FROM NEW."title" OR OLD."sku" IS DISTINCT FROM NEW."sku" OR OLD."code" IS DISTINCT FROM NEW."code") EXECUTE FUNCTION "<schema>"."st_shop_parts_search_upd"();

CREATE TRIGGER "st_shop_parts_search_del" AFTER DELETE ON "shop_parts" FOR EACH ROW EXECUTE FUNCTION "<schema>"."st_shop_parts_search_del"();

CREATE TRIGGER "st_shop_parts_search_trn" AFTER TRUNCATE ON "shop_parts" FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_shop_parts_search_trn"();

DROP INDEX IF EXISTS "<schema>"."sg_shop_parts_search";

TRUNCATE "<schema>"."sx_shop_parts_search";

INSERT INTO "<schema>"."sx_shop_parts_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."sku", '') || E'\x1f' || coalesce(r."code", '')) FROM "shop_parts" AS r;

CREATE INDEX IF NOT EXISTS "sg_shop_parts_search" ON "<schema>"."sx_shop_parts_search" USING gin ("doc" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL,
	xid xid8 NOT NULL DEFAULT pg_current_xact_id());

ALTER TABLE kit_row_counts ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "shop_parts" GROUP BY "team_id";

