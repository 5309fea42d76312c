SELECT count(*) FROM "shop_products" WHERE "team_id" = $1 AND "category_id" = $2;

