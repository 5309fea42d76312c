CREATE TABLE IF NOT EXISTS "shop_parts" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "team_id" TEXT NOT NULL,
  "owner" TEXT NOT NULL,
  "title" TEXT,
  "sku" TEXT,
  "code" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "created_by" TEXT NOT NULL,
  "updated_by" TEXT NOT NULL,
  "title__key" TEXT,
  "sku__key" TEXT,
  "code__key" TEXT,
  "sku__ukey" TEXT
);

CREATE INDEX IF NOT EXISTS "ix_shop_parts_team_created" ON "shop_parts" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_parts_sku" ON "shop_parts" ("team_id", "sku");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_parts_sku_ukey" ON "shop_parts" ("team_id", "sku__ukey");

CREATE INDEX IF NOT EXISTS "ix_shop_parts_sku_sort" ON "shop_parts" ("team_id", "sku__key", "sku", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_parts_code" ON "shop_parts" ("team_id", "code");

CREATE INDEX IF NOT EXISTS "ix_shop_parts_code_sort" ON "shop_parts" ("team_id", "code__key", "code", "id");

DROP TRIGGER IF EXISTS "trg_shop_parts_search_ai";

DROP TRIGGER IF EXISTS "trg_shop_parts_search_ad";

DROP TRIGGER IF EXISTS "trg_shop_parts_search_au";

DROP TABLE IF EXISTS "fts_shop_parts_search";

DROP TABLE IF EXISTS "ftp_shop_parts_search";

DROP TABLE IF EXISTS "ftw_shop_parts_search";

CREATE VIRTUAL TABLE "fts_shop_parts_search" USING fts5("title", "sku", "code", content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0');

INSERT INTO "fts_shop_parts_search"("fts_shop_parts_search", rank) VALUES ('automerge', 16);

INSERT INTO "fts_shop_parts_search"("fts_shop_parts_search", rank) VALUES ('usermerge', 16);

INSERT INTO "fts_shop_parts_search"("fts_shop_parts_search", rank) VALUES ('crisismerge', 64);

INSERT INTO "fts_shop_parts_search"("fts_shop_parts_search", rank) VALUES ('deletemerge', 50);

CREATE TABLE "ftp_shop_parts_search" (op TEXT, rid INTEGER);

CREATE TRIGGER "trg_shop_parts_search_ad" AFTER DELETE ON "shop_parts" BEGIN INSERT INTO "ftp_shop_parts_search"(op, rid) VALUES ('d', old."rowid"); END;

CREATE TRIGGER "trg_shop_parts_search_au" AFTER UPDATE OF "title", "sku", "code" ON "shop_parts" BEGIN INSERT INTO "ftp_shop_parts_search"(op, rid) VALUES ('u', new."rowid"); END;

INSERT INTO "fts_shop_parts_search"("rowid", "title", "sku", "code") SELECT "rowid", "title", "sku", "code" FROM "shop_parts" ORDER BY "rowid";

CREATE TABLE IF NOT EXISTS "ftw_shop_parts_search" (hwm INTEGER NOT NULL);

INSERT INTO "ftw_shop_parts_search"(hwm) SELECT coalesce(max("rowid"), 0) FROM "shop_parts" WHERE NOT EXISTS (SELECT 1 FROM "ftw_shop_parts_search");

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL,
	n INTEGER NOT NULL, gen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_name, team_id)) WITHOUT ROWID;

INSERT INTO kit_row_counts (table_name, team_id, n, gen) SELECT ?, "team_id", count(*), ? FROM "shop_parts" WHERE true GROUP BY "team_id"
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = excluded.n, gen = excluded.gen;

