CREATE TABLE IF NOT EXISTS "app_tasks" (
  "id" TEXT PRIMARY KEY NOT NULL,
  "team_id" TEXT NOT NULL,
  "owner" TEXT NOT NULL,
  "title" TEXT,
  "is_done" INTEGER,
  "due_at" TEXT,
  "created_at" TEXT NOT NULL,
  "updated_at" TEXT NOT NULL,
  "created_by" TEXT NOT NULL,
  "updated_by" TEXT NOT NULL,
  "title__key" TEXT
);

CREATE INDEX IF NOT EXISTS "ix_app_tasks_team_created" ON "app_tasks" ("team_id", "created_at", "id");

DROP TRIGGER IF EXISTS "trg_app_tasks_search_ai";

DROP TRIGGER IF EXISTS "trg_app_tasks_search_ad";

DROP TRIGGER IF EXISTS "trg_app_tasks_search_au";

DROP TABLE IF EXISTS "fts_app_tasks_search";

DROP TABLE IF EXISTS "ftp_app_tasks_search";

DROP TABLE IF EXISTS "ftw_app_tasks_search";

CREATE VIRTUAL TABLE "fts_app_tasks_search" USING fts5("title", content='', contentless_delete=1, detail=none, tokenize='trigram case_sensitive 0');

INSERT INTO "fts_app_tasks_search"("fts_app_tasks_search", rank) VALUES ('automerge', 16);

INSERT INTO "fts_app_tasks_search"("fts_app_tasks_search", rank) VALUES ('usermerge', 16);

INSERT INTO "fts_app_tasks_search"("fts_app_tasks_search", rank) VALUES ('crisismerge', 64);

INSERT INTO "fts_app_tasks_search"("fts_app_tasks_search", rank) VALUES ('deletemerge', 50);

CREATE TABLE "ftp_app_tasks_search" (op TEXT, rid INTEGER);

CREATE TRIGGER "trg_app_tasks_search_ad" AFTER DELETE ON "app_tasks" BEGIN INSERT INTO "ftp_app_tasks_search"(op, rid) VALUES ('d', old."rowid"); END;

CREATE TRIGGER "trg_app_tasks_search_au" AFTER UPDATE OF "title" ON "app_tasks" BEGIN INSERT INTO "ftp_app_tasks_search"(op, rid) VALUES ('u', new."rowid"); END;

INSERT INTO "fts_app_tasks_search"("rowid", "title") SELECT "rowid", "title" FROM "app_tasks" ORDER BY "rowid";

CREATE TABLE IF NOT EXISTS "ftw_app_tasks_search" (hwm INTEGER NOT NULL);

INSERT INTO "ftw_app_tasks_search"(hwm) SELECT coalesce(max("rowid"), 0) FROM "app_tasks" WHERE NOT EXISTS (SELECT 1 FROM "ftw_app_tasks_search");

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL,
	n INTEGER NOT NULL, gen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (table_name, team_id)) WITHOUT ROWID;

INSERT INTO kit_row_counts (table_name, team_id, n, gen) SELECT ?, "team_id", count(*), ? FROM "app_tasks" WHERE true GROUP BY "team_id"
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = excluded.n, gen = excluded.gen;

