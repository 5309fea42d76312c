SELECT count(*), pg_current_snapshot()::text FROM "shop_products" WHERE "team_id" = $1 AND "weight" > $2;

SELECT "id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by" FROM "shop_products" WHERE "team_id" = $1 AND "weight" > $2 ORDER BY "created_at" DESC, "id" DESC LIMIT $3 OFFSET $4;

SELECT "id", "team_id", "owner", "title", "description", "status", "sku", "price", "amount", "ratio", "quantity", "weight", "is_active", "published_at", "tags", "category_id", "created_at", "updated_at", "created_by", "updated_by", (SELECT count(*) FILTER (WHERE NOT pg_visible_in_snapshot("xid", $1::pg_snapshot)) FROM kit_row_counts WHERE table_name = $2 AND team_id = $3), (SELECT count(*) FROM kit_row_counts WHERE table_name = $4 AND team_id = $5) FROM "shop_products" WHERE "team_id" = $6 AND "weight" > $7 ORDER BY "created_at" DESC, "id" DESC LIMIT $8 OFFSET $9;

