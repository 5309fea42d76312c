package kit

import (
	"fmt"
	"net/http"

	"github.com/collectionkit/kit/openapi"
	"github.com/collectionkit/kit/teamauth"
)

// OpenAPI returns the OpenAPI 3.1 document of the Kit's HTTP API as it is
// now: [openapi.Build] over the current registry with the Kit's prefix,
// limits, body limit and accounts setup, then what each function given
// to [Kit.DescribeAPI] adds, in the order they were given. Handler serves
// it at Prefix + "/kit/openapi.json" to authenticated callers.
func (k *Kit) OpenAPI() (*openapi.Document, error) {
	doc, err := openapi.Build(k.Collections(), openapi.Options{
		Prefix:        k.cfg.Prefix,
		Limits:        k.limits,
		MaxBodyBytes:  k.cfg.MaxBodyBytes,
		CookieName:    k.cfg.Accounts.CookieName,
		HostDirectory: k.cfg.Directory != teamauth.Directory(k.auth),
	})
	if err != nil {
		return nil, err
	}
	if k.changesOn() {
		if err := k.describeChanges(doc); err != nil {
			return nil, fmt.Errorf("kit: OpenAPI: %w", err)
		}
	}
	if !k.cfg.Presence.Disabled {
		if err := k.describePresence(doc); err != nil {
			return nil, fmt.Errorf("kit: OpenAPI: %w", err)
		}
	}
	k.describeMu.Lock()
	describers := append([]func(*openapi.Document) error(nil), k.describers...)
	k.describeMu.Unlock()
	for _, f := range describers {
		if err := f(doc); err != nil {
			return nil, fmt.Errorf("kit: OpenAPI: %w", err)
		}
	}
	return doc, nil
}

// DescribeAPI adds f to the functions that complete the OpenAPI document
// (see [Kit.OpenAPI]): an add-on or a host that mounts routes with
// [Kit.Handle] or [Kit.HandleTeam] describes them here, with their
// component schemas. f runs each time the document is built, so it sees
// the registry of the moment (doc.TypeName names a collection's schema);
// its paths include the prefix ([Kit.Prefix]). An error from f (a path
// described twice, a schema name taken) fails the build.
func (k *Kit) DescribeAPI(f func(doc *openapi.Document) error) {
	k.describeMu.Lock()
	defer k.describeMu.Unlock()
	k.describers = append(k.describers, f)
}

// serveOpenAPI answers the document to any authenticated caller.
func (k *Kit) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if _, err := k.teamAuth.Authenticate(r); err != nil {
		k.WriteError(w, r, err)
		return
	}
	doc, err := k.OpenAPI()
	if err != nil {
		k.WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, doc)
}
