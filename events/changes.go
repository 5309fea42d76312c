package events

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
)

// autoFields are the auto-generated fields the change rules leave out: the
// record's identity and bookkeeping, not its content.
var autoFields = map[string]bool{
	"id": true, "createdAt": true, "updatedAt": true, "createdBy": true,
	"updatedBy": true, "teamId": true, "owner": true,
}

// changeSet is what one event records of a mutation: its item and changes.
type changeSet struct {
	itemID  string
	changes []Change
}

// changesOf applies the change rules to a mutation:
//
//   - create, and restore from the trash: one event with a new-value
//     entry for each field set (not null), auto-generated fields left out;
//   - update: one event with an entry for each field whose JSON encoding
//     changed, with its old and new value;
//   - delete, and purge from the trash: one event per record, with no
//     changes (a delete that moved records to the trash has
//     metadata.trashed true);
//   - move: one event with an entry for each position field (parent,
//     order, ...) that changed;
//   - reorder: one event with an "itemIds" entry holding the new order.
//
// Fields come in the collection's schema order (c may be nil), then any
// others by name.
func changesOf(m *kit.Mutation, c *collections.Collection) ([]changeSet, error) {
	switch m.Operation {
	case kit.OpCreate, kit.OpRestore:
		after := afterState(m)
		if after == nil {
			after = m.Data
		}
		id := m.ItemID
		if id == "" {
			id, _ = after["id"].(string)
		}
		var changes []Change
		for _, f := range fieldOrder(c, after) {
			v := after[f]
			if v == nil {
				continue // left empty: nothing was set
			}
			nv, err := encode(v)
			if err != nil {
				return nil, err
			}
			changes = append(changes, Change{FieldName: f, NewValue: &nv})
		}
		return []changeSet{{itemID: id, changes: changes}}, nil

	case kit.OpUpdate:
		after := afterState(m)
		set := m.Updates
		if set == nil {
			set = after
		}
		if after == nil {
			after = m.Updates
		}
		changes, err := diff(c, m.BeforeData, after, set)
		if err != nil {
			return nil, err
		}
		return []changeSet{{itemID: m.ItemID, changes: changes}}, nil

	case kit.OpDelete, kit.OpPurge:
		ids := m.ItemIDs
		if len(ids) == 0 && m.ItemID != "" {
			ids = []string{m.ItemID}
		}
		out := make([]changeSet, len(ids))
		for i, id := range ids {
			out[i] = changeSet{itemID: id}
		}
		return out, nil

	case kit.OpMove:
		changes, err := diff(c, m.BeforeData, m.Data, m.Data)
		if err != nil {
			return nil, err
		}
		return []changeSet{{itemID: m.ItemID, changes: changes}}, nil

	case kit.OpReorder:
		nv, err := encode(m.ItemIDs)
		if err != nil {
			return nil, err
		}
		ch := Change{FieldName: "itemIds", NewValue: &nv}
		if before, ok := m.BeforeData["itemIds"]; ok && before != nil {
			ov, err := encode(before)
			if err != nil {
				return nil, err
			}
			ch.OldValue = &ov
		}
		return []changeSet{{itemID: m.ItemID, changes: []Change{ch}}}, nil
	}
	// An operation this version does not know: recorded without changes.
	return []changeSet{{itemID: m.ItemID}}, nil
}

// afterState is the record after the mutation, when the payload's result
// is one.
func afterState(m *kit.Mutation) map[string]any {
	after, _ := m.Result.(map[string]any)
	return after
}

// diff returns an entry for each field of set (auto-generated ones left
// out) whose value in after differs from its value in before.
func diff(c *collections.Collection, before, after, set map[string]any) ([]Change, error) {
	var changes []Change
	for _, f := range fieldOrder(c, set) {
		nv, err := encodeNullable(after[f])
		if err != nil {
			return nil, err
		}
		ov, err := encodeNullable(before[f])
		if err != nil {
			return nil, err
		}
		if sameJSON(ov, nv) {
			continue
		}
		changes = append(changes, Change{FieldName: f, OldValue: ov, NewValue: nv})
	}
	return changes, nil
}

// fieldOrder returns the keys of vals that are not auto-generated, in the
// collection's field order, then the others by name.
func fieldOrder(c *collections.Collection, vals map[string]any) []string {
	out := make([]string, 0, len(vals))
	if c != nil {
		for _, f := range c.AllFields() {
			if _, ok := vals[f.Name]; ok && !autoFields[f.Name] {
				out = append(out, f.Name)
			}
		}
	}
	known := len(out)
	for k := range vals {
		if autoFields[k] || slices.Contains(out[:known], k) {
			continue
		}
		out = append(out, k)
	}
	sort.Strings(out[known:])
	return out
}

// encode returns the JSON encoding of v, as JSON.stringify would, without
// HTML escaping.
func encode(v any) (string, error) {
	return marshal(v)
}

// encodeNullable is encode with nil for a nil value.
func encodeNullable(v any) (*string, error) {
	if v == nil {
		return nil, nil
	}
	s, err := encode(v)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// sameJSON reports whether two encodings are the same value: the same
// text, or the same after a round trip (1.0 and 1, reordered keys).
func sameJSON(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if *a == *b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(*a), &x) != nil || json.Unmarshal([]byte(*b), &y) != nil {
		return false
	}
	cx, err1 := marshal(x)
	cy, err2 := marshal(y)
	return err1 == nil && err2 == nil && cx == cy
}

// marshal is json.Marshal without HTML escaping and without the trailing
// newline of an Encoder.
func marshal(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
