SELECT "id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by" FROM "shop_products" WHERE "team_id" = $1 AND "id" = $2;

SELECT "id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by" FROM "shop_products" WHERE "team_id" = $1 AND "id" = $2 FOR UPDATE;

WITH kit_row AS (UPDATE "shop_products" SET "title" = $1, "title__key" = $2, "updated_at" = $3, "updated_by" = $4 WHERE "team_id" = $5 AND "id" = $6 RETURNING "team_id") INSERT INTO kit_row_counts (table_name, team_id, n) SELECT 'shop_products', "team_id", 0 FROM kit_row;

INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			VALUES (pg_current_xact_id(), nextval('kit_changes_id_seq'), $1, $2, $3, $4, $5, $6);

