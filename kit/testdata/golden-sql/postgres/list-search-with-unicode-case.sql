SELECT count(*), (SELECT coalesce(sum(n), 0) FROM kit_row_counts WHERE table_name = $1 AND team_id = $2), pg_current_snapshot()::text FROM "sx_shop_products_search" WHERE "team_id" = $3 AND "doc" ~ $4;

