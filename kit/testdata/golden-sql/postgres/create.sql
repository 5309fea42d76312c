SELECT count(*) FROM "shop_categories" WHERE "team_id" = $1 AND "id" = $2;

WITH kit_row AS (INSERT INTO "shop_products" ("id", "team_id", "owner", "title", "title__key", "description", "description__key", "status", "status__key", "sku", "sku__key", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "category_id__key", "created_at", "updated_at", "created_by", "updated_by") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25) RETURNING "team_id") INSERT INTO kit_row_counts (table_name, team_id, n) SELECT 'shop_products', "team_id", 1 FROM kit_row;

INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			VALUES (pg_current_xact_id(), nextval('kit_changes_id_seq'), $1, $2, $3, $4, $5, $6);

