SELECT count(*), (SELECT coalesce(sum(n), 0) FROM kit_row_counts WHERE table_name = $1 AND team_id = $2), pg_current_snapshot()::text FROM "sx_shop_products_search" WHERE "team_id" = $3 AND "doc" LIKE $4 ESCAPE '\';

SELECT "id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by" FROM "shop_products" WHERE "team_id" = $1 AND "id" IN (SELECT "id" FROM "sx_shop_products_search" WHERE "team_id" = $2 AND "doc" LIKE $3 ESCAPE '\') ORDER BY "created_at" DESC, "id" DESC LIMIT $4 OFFSET $5;

