SELECT pg_advisory_xact_lock($1);

SELECT "id", "team_id", "owner", "title", "parent_id", "path", "depth", "order", "created_at", "updated_at", "created_by", "updated_by" FROM "docs_folders" WHERE "team_id" = $1 AND "id" = $2 FOR UPDATE;

SELECT count(*) FROM "docs_folders" WHERE "team_id" = $1 AND "parent_id" IS NULL AND "id" <> $2;

UPDATE "docs_folders" SET "order" = r.pos FROM (SELECT "id", row_number() OVER (ORDER BY ("order" IS NULL), "order", "id") - 1 AS pos FROM "docs_folders" WHERE "team_id" = $1 AND "parent_id" IS NULL AND "id" <> $2) AS r WHERE "docs_folders"."id" = r."id" AND "docs_folders"."order" IS DISTINCT FROM r.pos;

WITH kit_row AS (UPDATE "docs_folders" SET "parent_id" = $1, "order" = $2, "updated_at" = $3, "updated_by" = $4 WHERE "team_id" = $5 AND "id" = $6 RETURNING "team_id") INSERT INTO kit_row_counts (table_name, team_id, n) SELECT 'docs_folders', "team_id", 0 FROM kit_row;

UPDATE "docs_folders" SET "order" = r.pos FROM (SELECT "id", row_number() OVER (ORDER BY ("order" IS NULL), "order", "id") - 1 AS pos FROM "docs_folders" WHERE "team_id" = $1 AND "parent_id" IS NULL) AS r WHERE "docs_folders"."id" = r."id" AND "docs_folders"."order" IS DISTINCT FROM r.pos;

INSERT INTO kit_row_counts (table_name, team_id, n) VALUES ($1, $2, 0);

UPDATE "docs_folders" SET "order" = r.pos FROM (SELECT "id", row_number() OVER (ORDER BY ("order" IS NULL), "order", "id") - 1 AS pos FROM "docs_folders" WHERE "team_id" = $1 AND "parent_id" = $2) AS r WHERE "docs_folders"."id" = r."id" AND "docs_folders"."order" IS DISTINCT FROM r.pos;

UPDATE "docs_folders" SET "path" = $1 || substr("path", $2), "depth" = "depth" + $3 WHERE "team_id" = $4 AND "path" >= $5 AND "path" < $6;

INSERT INTO kit_row_counts (table_name, team_id, n) VALUES ($1, $2, 0);

SELECT "id", "team_id", "owner", "title", "parent_id", "path", "depth", "order", "created_at", "updated_at", "created_by", "updated_by" FROM "docs_folders" WHERE "team_id" = $1 AND "id" = $2;

INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			VALUES (pg_current_xact_id(), nextval('kit_changes_id_seq'), $1, $2, $3, $4, $5, $6);

