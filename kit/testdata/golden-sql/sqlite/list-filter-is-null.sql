SELECT coalesce(max("rowid"), 0) FROM "shop_products";

WITH RECURSIVE s(i) AS (VALUES(0) UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?) SELECT count(*) FROM "shop_products" WHERE "rowid" IN (SELECT 1 + (2 * i + 1) * ? / (2 * ?) FROM s) AND +"team_id" = ?;

SELECT count(*), coalesce((SELECT gen FROM kit_row_counts WHERE table_name = ? AND team_id = ?), 0) FROM "shop_products" WHERE +"team_id" = +? AND "published_at" IS NULL;

SELECT +"id", +"team_id", +"owner", +"title", +"description", +"status", +"sku", +"price", +"amount", +"ratio", +"quantity", +"weight", +"is_active", +"published_at", +"tags", +"category_id", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "shop_products" WHERE "team_id" = +? AND "published_at" IS NULL ORDER BY "created_at" DESC, "id" DESC LIMIT +? OFFSET ?;

