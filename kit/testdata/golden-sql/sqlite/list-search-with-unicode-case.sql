SELECT coalesce(max("rowid"), 0) FROM "shop_products";

WITH RECURSIVE s(i) AS (VALUES(0) UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?) SELECT count(*), coalesce(sum(("title" GLOB +? OR "description" GLOB +? OR "status" GLOB +? OR "sku" GLOB +? OR "category_id" GLOB +?)), 0) FROM "shop_products" WHERE "rowid" IN (SELECT 1 + (2 * i + 1) * ? / (2 * ?) FROM s) AND +"team_id" = ?;

SELECT (SELECT count(*) FROM (SELECT "rowid" FROM "fts_shop_products_search" WHERE "fts_shop_products_search" MATCH ? LIMIT +?)) + (SELECT count(*) FROM "ftp_shop_products_search") + max(0, (SELECT coalesce(max("rowid"), 0) FROM "shop_products") - (SELECT hwm FROM "ftw_shop_products_search"));

SELECT count(*), coalesce((SELECT gen FROM kit_row_counts WHERE table_name = ? AND team_id = ?), 0) FROM "shop_products" WHERE +"team_id" = +? AND "rowid" IN (SELECT "rowid" FROM "fts_shop_products_search" WHERE "fts_shop_products_search" MATCH ? UNION ALL SELECT rid FROM "ftp_shop_products_search" UNION ALL SELECT "rowid" FROM "shop_products" WHERE "rowid" > (SELECT hwm FROM "ftw_shop_products_search")) AND ("title" GLOB +? OR "description" GLOB +? OR "status" GLOB +? OR "sku" GLOB +? OR "category_id" GLOB +?);

