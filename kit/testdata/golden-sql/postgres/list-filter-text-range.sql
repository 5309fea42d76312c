SELECT count(*), pg_current_snapshot()::text FROM "shop_products" WHERE "team_id" = $1 AND ("title__key" > $2 OR ("title__key" = $3 AND "title" > $4));

SELECT "id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by" FROM "shop_products" WHERE "team_id" = $1 AND ("title__key" > $2 OR ("title__key" = $3 AND "title" > $4)) ORDER BY "created_at" DESC, "id" DESC LIMIT $5 OFFSET $6;

