SELECT +"id", +"team_id", +"owner", +"title", +"description", +"status", +"sku", +"price", +"amount", +"ratio", +"quantity", +"weight", +"is_active", +"published_at", +"tags", +"category_id", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "shop_products" WHERE "team_id" = ? AND "id" = ?;

UPDATE OR FAIL "shop_products" SET "sku" = ?, "sku__key" = ?, "updated_at" = ?, "updated_by" = ? WHERE "team_id" = ? AND "id" = ?;

INSERT INTO kit_changes (team_id, collection, operation, item_ids, correlation_id, ts) VALUES (?, ?, ?, ?, ?, ?);

INSERT INTO kit_row_counts (table_name, team_id, n, gen) VALUES (?, ?, ?, 1)
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = kit_row_counts.n + excluded.n, gen = kit_row_counts.gen + 1;

SELECT (SELECT count(*) FROM "ftp_shop_products_search") + max(0, (SELECT coalesce(max("rowid"), 0) FROM "shop_products") - (SELECT hwm FROM "ftw_shop_products_search"));

