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

CREATE INDEX IF NOT EXISTS "tg_app_tasks_title" ON "app_tasks" USING gin ("title" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL);

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "app_tasks" GROUP BY "team_id";

