CREATE TABLE IF NOT EXISTS "blog_posts" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "body" TEXT COLLATE "C",
  "published_at" TIMESTAMPTZ,
  "is_featured" BOOLEAN,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C",
  "body__key" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_blog_posts_team_created" ON "blog_posts" ("team_id", "created_at", "id");

DROP TRIGGER IF EXISTS "st_blog_posts_search_ins" ON "blog_posts";

DROP FUNCTION IF EXISTS "st_blog_posts_search_ins"();

DROP TRIGGER IF EXISTS "st_blog_posts_search_upd" ON "blog_posts";

DROP FUNCTION IF EXISTS "st_blog_posts_search_upd"();

DROP TRIGGER IF EXISTS "st_blog_posts_search_del" ON "blog_posts";

DROP FUNCTION IF EXISTS "st_blog_posts_search_del"();

DROP TRIGGER IF EXISTS "st_blog_posts_search_trn" ON "blog_posts";

DROP FUNCTION IF EXISTS "st_blog_posts_search_trn"();

CREATE TABLE IF NOT EXISTS "<schema>"."sx_blog_posts_search" ("team_id" TEXT COLLATE "C" NOT NULL, "id" TEXT COLLATE "C" NOT NULL, "created_at" TIMESTAMPTZ NOT NULL, "doc" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("team_id", "id"));

CREATE OR REPLACE FUNCTION "<schema>"."st_blog_posts_search_ins"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN INSERT INTO "<schema>"."sx_blog_posts_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."body", '')) FROM kit_new AS r; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_blog_posts_search_upd"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN UPDATE "<schema>"."sx_blog_posts_search" SET "team_id" = NEW."team_id", "id" = NEW."id", "created_at" = NEW."created_at", "doc" = lower(coalesce(NEW."title", '') || E'\x1f' || coalesce(NEW."body", '')) WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_blog_posts_search_del"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN DELETE FROM "<schema>"."sx_blog_posts_search" WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_blog_posts_search_trn"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN TRUNCATE "<schema>"."sx_blog_posts_search"; RETURN NULL; END $kit$;

CREATE TRIGGER "st_blog_posts_search_ins" AFTER INSERT ON "blog_posts" REFERENCING NEW TABLE AS kit_new FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_blog_posts_search_ins"();

CREATE TRIGGER "st_blog_posts_search_upd" AFTER UPDATE OF "team_id", "id", "created_at", "title", "body" ON "blog_posts" FOR EACH ROW WHEN (OLD."team_id" IS DISTINCT FROM NEW."team_id" OR OLD."id" IS DISTINCT FROM NEW."id" OR OLD."created_at" IS DISTINCT FROM NEW."created_at" OR OLD."title" IS DISTINCT FROM NEW."title" OR OLD."body" IS DISTINCT FROM NEW."body") EXECUTE FUNCTION "<schema>"."st_blog_posts_search_upd"();

CREATE TRIGGER "st_blog_posts_search_del" AFTER DELETE ON "blog_posts" FOR EACH ROW EXECUTE FUNCTION "<schema>"."st_blog_posts_search_del"();

CREATE TRIGGER "st_blog_posts_search_trn" AFTER TRUNCATE ON "blog_posts" FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_blog_posts_search_trn"();

DROP INDEX IF EXISTS "<schema>"."sg_blog_posts_search";

TRUNCATE "<schema>"."sx_blog_posts_search";

INSERT INTO "<schema>"."sx_blog_posts_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."body", '')) FROM "blog_posts" AS r;

CREATE INDEX IF NOT EXISTS "sg_blog_posts_search" ON "<schema>"."sx_blog_posts_search" USING gin ("doc" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL,
	xid xid8 NOT NULL DEFAULT pg_current_xact_id());

ALTER TABLE kit_row_counts ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "blog_posts" GROUP BY "team_id";

CREATE TABLE IF NOT EXISTS "shop_categories" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "description" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C",
  "description__key" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_shop_categories_team_created" ON "shop_categories" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_categories_title" ON "shop_categories" ("team_id", "title");

CREATE INDEX IF NOT EXISTS "ix_shop_categories_title_sort" ON "shop_categories" ("team_id" NULLS FIRST, "title__key" NULLS FIRST, "title" NULLS FIRST, "id" NULLS FIRST);

DROP TRIGGER IF EXISTS "st_shop_categories_search_ins" ON "shop_categories";

DROP FUNCTION IF EXISTS "st_shop_categories_search_ins"();

DROP TRIGGER IF EXISTS "st_shop_categories_search_upd" ON "shop_categories";

DROP FUNCTION IF EXISTS "st_shop_categories_search_upd"();

DROP TRIGGER IF EXISTS "st_shop_categories_search_del" ON "shop_categories";

DROP FUNCTION IF EXISTS "st_shop_categories_search_del"();

DROP TRIGGER IF EXISTS "st_shop_categories_search_trn" ON "shop_categories";

DROP FUNCTION IF EXISTS "st_shop_categories_search_trn"();

CREATE TABLE IF NOT EXISTS "<schema>"."sx_shop_categories_search" ("team_id" TEXT COLLATE "C" NOT NULL, "id" TEXT COLLATE "C" NOT NULL, "created_at" TIMESTAMPTZ NOT NULL, "doc" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("team_id", "id"));

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_categories_search_ins"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN INSERT INTO "<schema>"."sx_shop_categories_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."description", '')) FROM kit_new AS r; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_categories_search_upd"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN UPDATE "<schema>"."sx_shop_categories_search" SET "team_id" = NEW."team_id", "id" = NEW."id", "created_at" = NEW."created_at", "doc" = lower(coalesce(NEW."title", '') || E'\x1f' || coalesce(NEW."description", '')) WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_categories_search_del"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN DELETE FROM "<schema>"."sx_shop_categories_search" WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_categories_search_trn"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN TRUNCATE "<schema>"."sx_shop_categories_search"; RETURN NULL; END $kit$;

CREATE TRIGGER "st_shop_categories_search_ins" AFTER INSERT ON "shop_categories" REFERENCING NEW TABLE AS kit_new FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_shop_categories_search_ins"();

CREATE TRIGGER "st_shop_categories_search_upd" AFTER UPDATE OF "team_id", "id", "created_at", "title", "description" ON "shop_categories" FOR EACH ROW WHEN (OLD."team_id" IS DISTINCT FROM NEW."team_id" OR OLD."id" IS DISTINCT FROM NEW."id" OR OLD."created_at" IS DISTINCT FROM NEW."created_at" OR OLD."title" IS DISTINCT FROM NEW."title" OR OLD."description" IS DISTINCT FROM NEW."description") EXECUTE FUNCTION "<schema>"."st_shop_categories_search_upd"();

CREATE TRIGGER "st_shop_categories_search_del" AFTER DELETE ON "shop_categories" FOR EACH ROW EXECUTE FUNCTION "<schema>"."st_shop_categories_search_del"();

CREATE TRIGGER "st_shop_categories_search_trn" AFTER TRUNCATE ON "shop_categories" FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_shop_categories_search_trn"();

DROP INDEX IF EXISTS "<schema>"."sg_shop_categories_search";

TRUNCATE "<schema>"."sx_shop_categories_search";

INSERT INTO "<schema>"."sx_shop_categories_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."description", '')) FROM "shop_categories" AS r;

CREATE INDEX IF NOT EXISTS "sg_shop_categories_search" ON "<schema>"."sx_shop_categories_search" USING gin ("doc" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL,
	xid xid8 NOT NULL DEFAULT pg_current_xact_id());

ALTER TABLE kit_row_counts ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "shop_categories" GROUP BY "team_id";

CREATE TABLE IF NOT EXISTS "shop_products" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "sku" TEXT COLLATE "C",
  "description" TEXT COLLATE "C",
  "price" NUMERIC(10,2),
  "stock" BIGINT,
  "is_active" BOOLEAN,
  "released_at" TIMESTAMPTZ,
  "tags" JSONB,
  "dimensions" JSONB,
  "variants" JSONB,
  "image" TEXT COLLATE "C",
  "manual" TEXT COLLATE "C",
  "category_id" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C",
  "sku__key" TEXT COLLATE "C",
  "description__key" TEXT COLLATE "C",
  "category_id__key" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_shop_products_team_created" ON "shop_products" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_products_sku" ON "shop_products" ("team_id", "sku");

CREATE INDEX IF NOT EXISTS "ix_shop_products_sku_sort" ON "shop_products" ("team_id" NULLS FIRST, "sku__key" NULLS FIRST, "sku" NULLS FIRST, "id" NULLS FIRST);

CREATE INDEX IF NOT EXISTS "ix_shop_products_stock" ON "shop_products" ("team_id", "stock");

CREATE INDEX IF NOT EXISTS "ix_shop_products_category_id" ON "shop_products" ("team_id", "category_id");

DROP TRIGGER IF EXISTS "st_shop_products_search_ins" ON "shop_products";

DROP FUNCTION IF EXISTS "st_shop_products_search_ins"();

DROP TRIGGER IF EXISTS "st_shop_products_search_upd" ON "shop_products";

DROP FUNCTION IF EXISTS "st_shop_products_search_upd"();

DROP TRIGGER IF EXISTS "st_shop_products_search_del" ON "shop_products";

DROP FUNCTION IF EXISTS "st_shop_products_search_del"();

DROP TRIGGER IF EXISTS "st_shop_products_search_trn" ON "shop_products";

DROP FUNCTION IF EXISTS "st_shop_products_search_trn"();

CREATE TABLE IF NOT EXISTS "<schema>"."sx_shop_products_search" ("team_id" TEXT COLLATE "C" NOT NULL, "id" TEXT COLLATE "C" NOT NULL, "created_at" TIMESTAMPTZ NOT NULL, "doc" TEXT COLLATE "C" NOT NULL, PRIMARY KEY ("team_id", "id"));

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_products_search_ins"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN INSERT INTO "<schema>"."sx_shop_products_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."sku", '') || E'\x1f' || coalesce(r."description", '') || E'\x1f' || coalesce(r."category_id", '')) FROM kit_new AS r; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_products_search_upd"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN UPDATE "<schema>"."sx_shop_products_search" SET "team_id" = NEW."team_id", "id" = NEW."id", "created_at" = NEW."created_at", "doc" = lower(coalesce(NEW."title", '') || E'\x1f' || coalesce(NEW."sku", '') || E'\x1f' || coalesce(NEW."description", '') || E'\x1f' || coalesce(NEW."category_id", '')) WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_products_search_del"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN DELETE FROM "<schema>"."sx_shop_products_search" WHERE "team_id" = OLD."team_id" AND "id" = OLD."id"; RETURN NULL; END $kit$;

CREATE OR REPLACE FUNCTION "<schema>"."st_shop_products_search_trn"() RETURNS trigger LANGUAGE plpgsql AS $kit$ BEGIN TRUNCATE "<schema>"."sx_shop_products_search"; RETURN NULL; END $kit$;

CREATE TRIGGER "st_shop_products_search_ins" AFTER INSERT ON "shop_products" REFERENCING NEW TABLE AS kit_new FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_shop_products_search_ins"();

CREATE TRIGGER "st_shop_products_search_upd" AFTER UPDATE OF "team_id", "id", "created_at", "title", "sku", "description", "category_id" ON "shop_products" FOR EACH ROW WHEN (OLD."team_id" IS DISTINCT FROM NEW."team_id" OR OLD."id" IS DISTINCT FROM NEW."id" OR OLD."created_at" IS DISTINCT FROM NEW."created_at" OR OLD."title" IS DISTINCT FROM NEW."title" OR OLD."sku" IS DISTINCT FROM NEW."sku" OR OLD."description" IS DISTINCT FROM NEW."description" OR OLD."category_id" IS DISTINCT FROM NEW."category_id") EXECUTE FUNCTION "<schema>"."st_shop_products_search_upd"();

CREATE TRIGGER "st_shop_products_search_del" AFTER DELETE ON "shop_products" FOR EACH ROW EXECUTE FUNCTION "<schema>"."st_shop_products_search_del"();

CREATE TRIGGER "st_shop_products_search_trn" AFTER TRUNCATE ON "shop_products" FOR EACH STATEMENT EXECUTE FUNCTION "<schema>"."st_shop_products_search_trn"();

DROP INDEX IF EXISTS "<schema>"."sg_shop_products_search";

TRUNCATE "<schema>"."sx_shop_products_search";

INSERT INTO "<schema>"."sx_shop_products_search" ("team_id", "id", "created_at", "doc") SELECT r."team_id", r."id", r."created_at", lower(coalesce(r."title", '') || E'\x1f' || coalesce(r."sku", '') || E'\x1f' || coalesce(r."description", '') || E'\x1f' || coalesce(r."category_id", '')) FROM "shop_products" AS r;

CREATE INDEX IF NOT EXISTS "sg_shop_products_search" ON "<schema>"."sx_shop_products_search" USING gin ("doc" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL,
	xid xid8 NOT NULL DEFAULT pg_current_xact_id());

ALTER TABLE kit_row_counts ADD COLUMN IF NOT EXISTS xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "shop_products" GROUP BY "team_id";

ALTER TABLE "shop_products" ADD CONSTRAINT "fk_shop_products_category_id" FOREIGN KEY ("category_id") REFERENCES "shop_categories" ("id");

