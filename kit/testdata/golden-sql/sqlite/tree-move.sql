SELECT +"id", +"team_id", +"owner", +"title", +"parent_id", +"path", +"depth", +"order", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "docs_folders" WHERE "team_id" = ? AND "id" = ?;

SELECT +"id", +"team_id", +"owner", +"title", +"parent_id", +"path", +"depth", +"order", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "docs_folders" WHERE "team_id" = ? AND "id" = ?;

SELECT count(*) FROM "docs_folders" WHERE "team_id" = +? AND "parent_id" = +? AND "id" <> ?;

UPDATE "docs_folders" SET "order" = r.pos FROM (SELECT "id", row_number() OVER (ORDER BY ("order" IS NULL), "order", "id") - 1 AS pos FROM "docs_folders" WHERE "team_id" = +? AND "parent_id" = +? AND "id" <> ?) AS r WHERE "docs_folders"."id" = r."id" AND "docs_folders"."order" IS DISTINCT FROM r.pos;

UPDATE OR FAIL "docs_folders" SET "parent_id" = ?, "order" = ?, "updated_at" = ?, "updated_by" = ? WHERE "team_id" = ? AND "id" = ?;

UPDATE "docs_folders" SET "order" = r.pos FROM (SELECT "id", row_number() OVER (ORDER BY ("order" IS NULL), "order", "id") - 1 AS pos FROM "docs_folders" WHERE "team_id" = +? AND "parent_id" = +?) AS r WHERE "docs_folders"."id" = r."id" AND "docs_folders"."order" IS DISTINCT FROM r.pos;

UPDATE "docs_folders" SET "order" = r.pos FROM (SELECT "id", row_number() OVER (ORDER BY ("order" IS NULL), "order", "id") - 1 AS pos FROM "docs_folders" WHERE "team_id" = +? AND "parent_id" IS NULL) AS r WHERE "docs_folders"."id" = r."id" AND "docs_folders"."order" IS DISTINCT FROM r.pos;

UPDATE "docs_folders" SET "path" = ? || substr("path", ?), "depth" = "depth" + ? WHERE "team_id" = ? AND "path" >= ? AND "path" < ?;

SELECT +"id", +"team_id", +"owner", +"title", +"parent_id", +"path", +"depth", +"order", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "docs_folders" WHERE "team_id" = ? AND "id" = ?;

INSERT INTO kit_changes (team_id, collection, operation, item_ids, correlation_id, ts) VALUES (?, ?, ?, ?, ?, ?);

INSERT INTO kit_row_counts (table_name, team_id, n, gen) VALUES (?, ?, ?, 1)
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = kit_row_counts.n + excluded.n, gen = kit_row_counts.gen + 1;

SELECT (SELECT count(*) FROM "ftp_docs_folders_search") + max(0, (SELECT coalesce(max("rowid"), 0) FROM "docs_folders") - (SELECT hwm FROM "ftw_docs_folders_search"));

