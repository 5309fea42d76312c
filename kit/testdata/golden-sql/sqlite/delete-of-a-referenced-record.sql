SELECT count(*) FROM "shop_products" WHERE "team_id" = +? AND "category_id" = +?;

