SELECT +"id", +"team_id", +"owner", +"title", +"order", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "docs_tasks" WHERE "team_id" = ? AND "id" = ?;

SELECT +"id", +"team_id", +"owner", +"title", +"order", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "docs_tasks" WHERE "team_id" = +? ORDER BY ("order" IS NULL), "order", "id";

UPDATE "docs_tasks" SET "order" = CASE "id" WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? END WHERE "team_id" = ? AND "id" IN (?, ?, ?);

INSERT INTO kit_changes (team_id, collection, operation, item_ids, correlation_id, ts) VALUES (?, ?, ?, ?, ?, ?);

INSERT INTO kit_row_counts (table_name, team_id, n, gen) VALUES (?, ?, ?, 1)
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = kit_row_counts.n + excluded.n, gen = kit_row_counts.gen + 1;

SELECT (SELECT count(*) FROM "ftp_docs_tasks_search") + max(0, (SELECT coalesce(max("rowid"), 0) FROM "docs_tasks") - (SELECT hwm FROM "ftw_docs_tasks_search"));

