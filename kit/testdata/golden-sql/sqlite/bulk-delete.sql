SELECT +"shop_products"."id", +"shop_products"."team_id", +"shop_products"."owner", +"shop_products"."title", +"shop_products"."description", +"shop_products"."status", +"shop_products"."sku", +"shop_products"."price", +"shop_products"."amount", +"shop_products"."ratio", +"shop_products"."quantity", +"shop_products"."weight", +"shop_products"."is_active", +"shop_products"."published_at", +"shop_products"."tags", +"shop_products"."category_id", +"shop_products"."created_at", +"shop_products"."updated_at", +"shop_products"."created_by", +"shop_products"."updated_by" FROM json_each(?) AS kit_j JOIN "shop_products" ON "shop_products"."id" = kit_j.value WHERE +"shop_products"."team_id" = ?;

DELETE FROM "shop_products" WHERE "team_id" = ? AND "id" = ?;

DELETE FROM "shop_products" WHERE "team_id" = ? AND "id" = ?;

DELETE FROM "shop_products" WHERE "team_id" = ? AND "id" = ?;

INSERT INTO kit_changes (team_id, collection, operation, item_ids, correlation_id, ts) VALUES (?, ?, ?, ?, ?, ?);

INSERT INTO kit_row_counts (table_name, team_id, n, gen) VALUES (?, ?, ?, 1)
	ON CONFLICT (table_name, team_id) DO UPDATE SET n = kit_row_counts.n + excluded.n, gen = kit_row_counts.gen + 1;

SELECT (SELECT count(*) FROM "ftp_shop_products_search") + max(0, (SELECT coalesce(max("rowid"), 0) FROM "shop_products") - (SELECT hwm FROM "ftw_shop_products_search"));

