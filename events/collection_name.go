package events

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/collectionkit/kit/collections"
)

// collectionKey turns the list's collectionName into the registry key
// events are stored under. It accepts, in this order:
//
//   - a registry key ("shopProducts");
//   - an apiPath ("shop-products");
//   - a collection's name as the schema writes it ("products") when
//     exactly one registered collection has that name;
//   - a key no collection has any more under which the team still has
//     events (a collection since removed or renamed), unchanged.
//
// Anything else is a *kit.QueryError naming collectionName and the forms
// it takes; a name that several collections share is one listing their
// keys.
func (t *Tracker) collectionKey(ctx context.Context, teamID, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	reg := t.k.Collections()
	if c, ok := reg.Get(name); ok {
		return c.Key(), nil
	}
	if c, ok := reg.ByAPIPath(name); ok {
		return c.Key(), nil
	}
	named := reg.Named(name)
	switch len(named) {
	case 1:
		return named[0].Key(), nil
	case 0:
	default:
		keys := make([]string, len(named))
		for i, c := range named {
			keys[i] = c.Key()
		}
		sort.Strings(keys)
		return "", qerr("collectionName", fmt.Sprintf("%q is the name of %d collections (%s): give a registry key or an apiPath",
			name, len(named), strings.Join(keys, ", ")))
	}
	stored, err := t.k.DB().NewSelect().Table("kit_events").
		Where("team_id = ?", teamID).Where("collection_name = ?", name).Exists(ctx)
	if err != nil {
		return "", fmt.Errorf("events: look up collectionName: %w", err)
	}
	if stored {
		return name, nil
	}
	return "", qerr("collectionName", fmt.Sprintf("%q names no collection: give a registry key (%s), an apiPath (%s) or the name of one collection (%s)",
		name, example(reg, (*collections.Collection).Key), example(reg, (*collections.Collection).APIPath), example(reg, (*collections.Collection).Name)))
}

// example returns what form gives for the registry's first collection,
// for messages, or a made-up one when the registry is empty.
func example(reg *collections.Registry, form func(*collections.Collection) string) string {
	for _, c := range reg.All() {
		if !c.External() {
			return form(c)
		}
	}
	return "..."
}
