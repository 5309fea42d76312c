WITH kit_row AS (DELETE FROM "shop_products" WHERE "team_id" = $1 AND "id" = $2 RETURNING "team_id"), kit_count AS (INSERT INTO kit_row_counts (table_name, team_id, n) SELECT 'shop_products', "team_id", -1 FROM kit_row), kit_change AS (INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			SELECT pg_current_xact_id(), nextval('kit_changes_id_seq'), $3, $4, $5, $6, $7, $8 FROM kit_row) SELECT * FROM kit_row;

