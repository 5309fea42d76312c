INSERT INTO kit_changes (team_id, collection, operation, item_ids, correlation_id, ts) VALUES (?, ?, ?, ?, ?, ?);

SELECT COALESCE(MAX(id), 0) FROM kit_changes;

SELECT id, team_id, collection, operation, item_ids, correlation_id, ts, 0, 0 FROM kit_changes WHERE id > ? ORDER BY id LIMIT +?;

SELECT COALESCE((SELECT MAX(id) FROM kit_changes WHERE ts < ?), 0),
			COALESCE((SELECT MAX(id) FROM kit_changes), 0);

