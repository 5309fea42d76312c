CREATE TABLE IF NOT EXISTS "blog_posts" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "team_id" TEXT NOT NULL,
  "owner" TEXT NOT NULL,
  "title" TEXT,
  "body" TEXT,
  "published_at" TEXT,
  "is_featured" INTEGER,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "created_by" TEXT NOT NULL,
  "updated_by" TEXT NOT NULL,
  "title__key" TEXT,
  "body__key" TEXT
);

CREATE INDEX IF NOT EXISTS "ix_blog_posts_team_created" ON "blog_posts" ("team_id", "created_at", "id");

DROP TRIGGER IF EXISTS "trg_blog_posts_search_ai";

DROP TRIGGER IF EXISTS "trg_blog_posts_search_ad";

DROP TRIGGER IF EXISTS "trg_blog_posts_search_au";

DROP TABLE IF EXISTS "fts_blog_posts_search";

DROP TABLE IF EXISTS "ftp_blog_posts_search";

DROP TABLE IF EXISTS "ftw_blog_posts_search";

CREATE VIRTUAL TABLE "fts_blog_posts_search" USING fts5("title", "body", content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0');

INSERT INTO "fts_blog_posts_search"("fts_blog_posts_search", rank) VALUES ('automerge', 16);

INSERT INTO "fts_blog_posts_search"("fts_blog_posts_search", rank) VALUES ('usermerge', 16);

INSERT INTO "fts_blog_posts_search"("fts_blog_posts_search", rank) VALUES ('crisismerge', 64);

INSERT INTO "fts_blog_posts_search"("fts_blog_posts_search", rank) VALUES ('deletemerge', 50);

CREATE TABLE "ftp_blog_posts_search" (op TEXT, rid INTEGER);

CREATE TRIGGER "trg_blog_posts_search_ad" AFTER DELETE ON "blog_posts" BEGIN INSERT INTO "ftp_blog_posts_search"(op, rid) VALUES ('d', old."rowid"); END;

CREATE TRIGGER "trg_blog_posts_search_au" AFTER UPDATE OF "title", "body" ON "blog_posts" BEGIN INSERT INTO "ftp_blog_posts_search"(op, rid) VALUES ('u', new."rowid"); END;

INSERT INTO "fts_blog_posts_search"("rowid", "title", "body") SELECT "rowid", "title", "body" FROM "blog_posts" ORDER BY "rowid";

CREATE TABLE IF NOT EXISTS "ftw_blog_posts_search" (hwm INTEGER NOT NULL);

INSERT INTO "ftw_blog_posts_search"(hwm) SELECT coalesce(max("rowid"), 0) FROM "blog_posts" WHERE NOT EXISTS (SELECT 1 FROM "ftw_blog_posts_search");

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL,
	n INTEGER NOT NULL, gen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_name, team_id)) WITHOUT ROWID;

INSERT INTO kit_row_counts (table_name, team_id, n, gen) SELECT ?, "team_id", count(*), ? FROM "blog_posts" WHERE true GROUP BY "team_id"
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = excluded.n, gen = excluded.gen;

CREATE TABLE IF NOT EXISTS "shop_categories" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "team_id" TEXT NOT NULL,
  "owner" TEXT NOT NULL,
  "title" TEXT,
  "description" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "created_by" TEXT NOT NULL,
  "updated_by" TEXT NOT NULL,
  "title__key" TEXT,
  "description__key" TEXT
);

CREATE INDEX IF NOT EXISTS "ix_shop_categories_team_created" ON "shop_categories" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_categories_title" ON "shop_categories" ("team_id", "title");

CREATE INDEX IF NOT EXISTS "ix_shop_categories_title_sort" ON "shop_categories" ("team_id", "title__key", "title", "id");

DROP TRIGGER IF EXISTS "trg_shop_categories_search_ai";

DROP TRIGGER IF EXISTS "trg_shop_categories_search_ad";

DROP TRIGGER IF EXISTS "trg_shop_categories_search_au";

DROP TABLE IF EXISTS "fts_shop_categories_search";

DROP TABLE IF EXISTS "ftp_shop_categories_search";

DROP TABLE IF EXISTS "ftw_shop_categories_search";

CREATE VIRTUAL TABLE "fts_shop_categories_search" USING fts5("title", "description", content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0');

INSERT INTO "fts_shop_categories_search"("fts_shop_categories_search", rank) VALUES ('automerge', 16);

INSERT INTO "fts_shop_categories_search"("fts_shop_categories_search", rank) VALUES ('usermerge', 16);

INSERT INTO "fts_shop_categories_search"("fts_shop_categories_search", rank) VALUES ('crisismerge', 64);

INSERT INTO "fts_shop_categories_search"("fts_shop_categories_search", rank) VALUES ('deletemerge', 50);

CREATE TABLE "ftp_shop_categories_search" (op TEXT, rid INTEGER);

CREATE TRIGGER "trg_shop_categories_search_ad" AFTER DELETE ON "shop_categories" BEGIN INSERT INTO "ftp_shop_categories_search"(op, rid) VALUES ('d', old."rowid"); END;

CREATE TRIGGER "trg_shop_categories_search_au" AFTER UPDATE OF "title", "description" ON "shop_categories" BEGIN INSERT INTO "ftp_shop_categories_search"(op, rid) VALUES ('u', new."rowid"); END;

INSERT INTO "fts_shop_categories_search"("rowid", "title", "description") SELECT "rowid", "title", "description" FROM "shop_categories" ORDER BY "rowid";

CREATE TABLE IF NOT EXISTS "ftw_shop_categories_search" (hwm INTEGER NOT NULL);

INSERT INTO "ftw_shop_categories_search"(hwm) SELECT coalesce(max("rowid"), 0) FROM "shop_categories" WHERE NOT EXISTS (SELECT 1 FROM "ftw_shop_categories_search");

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL,
	n INTEGER NOT NULL, gen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_name, team_id)) WITHOUT ROWID;

INSERT INTO kit_row_counts (table_name, team_id, n, gen) SELECT ?, "team_id", count(*), ? FROM "shop_categories" WHERE true GROUP BY "team_id"
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = excluded.n, gen = excluded.gen;

CREATE TABLE IF NOT EXISTS "shop_products" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "team_id" TEXT NOT NULL,
  "owner" TEXT NOT NULL,
  "title" TEXT,
  "sku" TEXT,
  "description" TEXT,
  "price" TEXT,
  "stock" INTEGER,
  "is_active" INTEGER,
  "released_at" TEXT,
  "tags" TEXT CHECK ("tags" IS NULL OR json_valid("tags")),
  "dimensions" TEXT CHECK ("dimensions" IS NULL OR json_valid("dimensions")),
  "variants" TEXT CHECK ("variants" IS NULL OR json_valid("variants")),
  "image" TEXT,
  "manual" TEXT,
  "category_id" TEXT REFERENCES "shop_categories" ("id"),
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "created_by" TEXT NOT NULL,
  "updated_by" TEXT NOT NULL,
  "title__key" TEXT,
  "sku__key" TEXT,
  "description__key" TEXT,
  "category_id__key" TEXT
);

CREATE INDEX IF NOT EXISTS "ix_shop_products_team_created" ON "shop_products" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_products_sku" ON "shop_products" ("team_id", "sku");

CREATE INDEX IF NOT EXISTS "ix_shop_products_sku_sort" ON "shop_products" ("team_id", "sku__key", "sku", "id");

CREATE INDEX IF NOT EXISTS "ix_shop_products_stock" ON "shop_products" ("team_id", "stock");

CREATE INDEX IF NOT EXISTS "ix_shop_products_category_id" ON "shop_products" ("team_id", "category_id");

DROP TRIGGER IF EXISTS "trg_shop_products_search_ai";

DROP TRIGGER IF EXISTS "trg_shop_products_search_ad";

DROP TRIGGER IF EXISTS "trg_shop_products_search_au";

DROP TABLE IF EXISTS "fts_shop_products_search";

DROP TABLE IF EXISTS "ftp_shop_products_search";

DROP TABLE IF EXISTS "ftw_shop_products_search";

CREATE VIRTUAL TABLE "fts_shop_products_search" USING fts5("title", "sku", "description", "category_id", content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0');

INSERT INTO "fts_shop_products_search"("fts_shop_products_search", rank) VALUES ('automerge', 16);

INSERT INTO "fts_shop_products_search"("fts_shop_products_search", rank) VALUES ('usermerge', 16);

INSERT INTO "fts_shop_products_search"("fts_shop_products_search", rank) VALUES ('crisismerge', 64);

INSERT INTO "fts_shop_products_search"("fts_shop_products_search", rank) VALUES ('deletemerge', 50);

CREATE TABLE "ftp_shop_products_search" (op TEXT, rid INTEGER);

CREATE TRIGGER "trg_shop_products_search_ad" AFTER DELETE ON "shop_products" BEGIN INSERT INTO "ftp_shop_products_search"(op, rid) VALUES ('d', old."rowid"); END;

CREATE TRIGGER "trg_shop_products_search_au" AFTER UPDATE OF "title", "sku", "description", "category_id" ON "shop_products" BEGIN INSERT INTO "ftp_shop_products_search"(op, rid) VALUES ('u', new."rowid"); END;

INSERT INTO "fts_shop_products_search"("rowid", "title", "sku", "description", "category_id") SELECT "rowid", "title", "sku", "description", "category_id" FROM "shop_products" ORDER BY "rowid";

CREATE TABLE IF NOT EXISTS "ftw_shop_products_search" (hwm INTEGER NOT NULL);

INSERT INTO "ftw_shop_products_search"(hwm) SELECT coalesce(max("rowid"), 0) FROM "shop_products" WHERE NOT EXISTS (SELECT 1 FROM "ftw_shop_products_search");

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL,
	n INTEGER NOT NULL, gen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_name, team_id)) WITHOUT ROWID;

INSERT INTO kit_row_counts (table_name, team_id, n, gen) SELECT ?, "team_id", count(*), ? FROM "shop_products" WHERE true GROUP BY "team_id"
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = excluded.n, gen = excluded.gen;

