SELECT count(*), pg_current_snapshot()::text FROM "shop_products" WHERE "team_id" = $1 AND "id" IN (SELECT "id" FROM "sx_shop_products_search" WHERE "team_id" = $2 AND "doc" LIKE $3 ESCAPE '\') AND "status" = $4;

SELECT "id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by" FROM "shop_products" WHERE "team_id" = $1 AND "id" IN (SELECT "id" FROM "sx_shop_products_search" WHERE "team_id" = $2 AND "doc" LIKE $3 ESCAPE '\') AND "status" = $4 ORDER BY "created_at" DESC, "id" DESC LIMIT $5 OFFSET $6;

