package kit

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/collectionkit/kit/collections"
)

// superAdminCollection resolves the {collection} of the super-admin item
// path: a registry key ("shopProducts"), an apiPath ("shop-products"), or
// the collection's name as the specification writes it ("products") when
// exactly one collection has that name. A name several collections share
// is a 404 naming their keys; anything else, or an external collection,
// is ErrUnknownCollection.
func superAdminCollection(reg *collections.Registry, name string) (*collections.Collection, error) {
	c, ok := reg.Get(name)
	if !ok {
		c, ok = reg.ByAPIPath(name)
	}
	if !ok {
		var internal []*collections.Collection
		for _, n := range reg.Named(name) {
			if !n.External() {
				internal = append(internal, n)
			}
		}
		switch len(internal) {
		case 0:
		case 1:
			c, ok = internal[0], true
		default:
			keys := make([]string, len(internal))
			for i, n := range internal {
				keys[i] = n.Key()
			}
			sort.Strings(keys)
			return nil, &Error{Status: http.StatusNotFound, Message: fmt.Sprintf(
				"collection %q is the name of %d collections (%s): name one by its registry key or apiPath",
				name, len(keys), strings.Join(keys, ", ")), Data: map[string]any{"collections": keys}}
		}
	}
	if !ok || c.External() {
		return nil, ErrUnknownCollection
	}
	return c, nil
}
