INSERT INTO kit_changes (xid, id, team_id, collection, operation, item_ids, correlation_id, ts)
			VALUES (pg_current_xact_id(), nextval('kit_changes_id_seq'), $1, $2, $3, $4, $5, $6);

SELECT COALESCE(MAX(id), 0) FROM kit_changes;

SELECT pg_current_xact_id()::text::bigint;

SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint;

SELECT id, team_id, collection, operation, item_ids, correlation_id, ts,
			pg_snapshot_xmin(pg_current_snapshot())::text::bigint, pg_snapshot_xmax(pg_current_snapshot())::text::bigint
			FROM kit_changes WHERE id > $1 ORDER BY id LIMIT $2;

SELECT COALESCE((SELECT MAX(id) FROM kit_changes WHERE ts < $1), 0),
			COALESCE((SELECT MAX(id) FROM kit_changes), 0);

