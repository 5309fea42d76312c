SELECT pg_advisory_xact_lock($1);

SELECT "id", "team_id", "owner", "title", "order", "created_at", "updated_at", "created_by", "updated_by" FROM "docs_tasks" WHERE "team_id" = $1 AND "id" = $2;

SELECT "id", "team_id", "owner", "title", "order", "created_at", "updated_at", "created_by", "updated_by" FROM "docs_tasks" WHERE "team_id" = $1 ORDER BY ("order" IS NULL), "order", "id";

UPDATE "docs_tasks" SET "order" = CASE "id" WHEN $1 THEN CAST($2 AS DOUBLE PRECISION) WHEN $3 THEN CAST($4 AS DOUBLE PRECISION) WHEN $5 THEN CAST($6 AS DOUBLE PRECISION) END WHERE "team_id" = $7 AND "id" IN ($8, $9, $10);

INSERT INTO kit_row_counts (table_name, team_id, n) VALUES ($1, $2, 0);

INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			VALUES (pg_current_xact_id(), nextval('kit_changes_id_seq'), $1, $2, $3, $4, $5, $6);

