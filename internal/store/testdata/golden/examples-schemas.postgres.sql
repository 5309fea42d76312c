CREATE TABLE IF NOT EXISTS "blog_posts" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "body" TEXT COLLATE "C",
  "published_at" TIMESTAMPTZ,
  "is_featured" BOOLEAN,
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C",
  "body__key" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_blog_posts_team_created" ON "blog_posts" ("team_id", "created_at", "id");

CREATE INDEX IF NOT EXISTS "tg_blog_posts_title" ON "blog_posts" USING gin ("title" "public".gin_trgm_ops);

CREATE INDEX IF NOT EXISTS "tg_blog_posts_body" ON "blog_posts" USING gin ("body" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL);

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "blog_posts" GROUP BY "team_id";

CREATE TABLE IF NOT EXISTS "shop_categories" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "description" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C",
  "description__key" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_shop_categories_team_created" ON "shop_categories" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_categories_title" ON "shop_categories" ("team_id", "title");

CREATE INDEX IF NOT EXISTS "ix_shop_categories_title_sort" ON "shop_categories" ("team_id" NULLS FIRST, "title__key" NULLS FIRST, "title" NULLS FIRST, "id" NULLS FIRST);

CREATE INDEX IF NOT EXISTS "tg_shop_categories_title" ON "shop_categories" USING gin ("title" "public".gin_trgm_ops);

CREATE INDEX IF NOT EXISTS "tg_shop_categories_description" ON "shop_categories" USING gin ("description" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL);

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "shop_categories" GROUP BY "team_id";

CREATE TABLE IF NOT EXISTS "shop_products" (
  "id" TEXT COLLATE "C" PRIMARY KEY NOT NULL,
  "team_id" TEXT COLLATE "C" NOT NULL,
  "owner" TEXT COLLATE "C" NOT NULL,
  "title" TEXT COLLATE "C",
  "sku" TEXT COLLATE "C",
  "description" TEXT COLLATE "C",
  "price" NUMERIC(10,2),
  "stock" DOUBLE PRECISION,
  "is_active" BOOLEAN,
  "released_at" TIMESTAMPTZ,
  "tags" JSONB,
  "dimensions" JSONB,
  "variants" JSONB,
  "image" TEXT COLLATE "C",
  "manual" TEXT COLLATE "C",
  "category_id" TEXT COLLATE "C",
  "created_at" TIMESTAMPTZ NOT NULL,
  "updated_at" TIMESTAMPTZ NOT NULL,
  "created_by" TEXT COLLATE "C" NOT NULL,
  "updated_by" TEXT COLLATE "C" NOT NULL,
  "title__key" TEXT COLLATE "C",
  "sku__key" TEXT COLLATE "C",
  "description__key" TEXT COLLATE "C",
  "category_id__key" TEXT COLLATE "C"
);

CREATE INDEX IF NOT EXISTS "ix_shop_products_team_created" ON "shop_products" ("team_id", "created_at", "id");

CREATE UNIQUE INDEX IF NOT EXISTS "ux_shop_products_sku" ON "shop_products" ("team_id", "sku");

CREATE INDEX IF NOT EXISTS "ix_shop_products_sku_sort" ON "shop_products" ("team_id" NULLS FIRST, "sku__key" NULLS FIRST, "sku" NULLS FIRST, "id" NULLS FIRST);

CREATE INDEX IF NOT EXISTS "ix_shop_products_stock" ON "shop_products" ("team_id", "stock");

CREATE INDEX IF NOT EXISTS "ix_shop_products_category_id" ON "shop_products" ("team_id", "category_id");

CREATE INDEX IF NOT EXISTS "tg_shop_products_title" ON "shop_products" USING gin ("title" "public".gin_trgm_ops);

CREATE INDEX IF NOT EXISTS "tg_shop_products_sku" ON "shop_products" USING gin ("sku" "public".gin_trgm_ops);

CREATE INDEX IF NOT EXISTS "tg_shop_products_description" ON "shop_products" USING gin ("description" "public".gin_trgm_ops);

CREATE INDEX IF NOT EXISTS "tg_shop_products_category_id" ON "shop_products" USING gin ("category_id" "public".gin_trgm_ops);

CREATE TABLE IF NOT EXISTS kit_row_counts (table_name TEXT NOT NULL, team_id TEXT NOT NULL, n BIGINT NOT NULL);

CREATE INDEX IF NOT EXISTS kit_row_counts_key ON kit_row_counts (table_name, team_id);

INSERT INTO kit_row_counts (table_name, team_id, n) SELECT $1, "team_id", count(*) FROM "shop_products" GROUP BY "team_id";

ALTER TABLE "shop_products" ADD CONSTRAINT "fk_shop_products_category_id" FOREIGN KEY ("category_id") REFERENCES "shop_categories" ("id");

