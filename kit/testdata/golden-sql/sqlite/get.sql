SELECT +"id", +"team_id", +"owner", +"title", +"description", +"status", +"sku", +"price", +"amount", +"ratio", +"quantity", +"weight", +"is_active", +"published_at", +"tags", +"category_id", +"created_at", +"updated_at", +"created_by", +"updated_by" FROM "shop_products" WHERE "team_id" = ? AND "id" = ?;

