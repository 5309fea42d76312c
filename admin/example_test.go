package admin_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"testing/fstest"

	"github.com/collectionkit/kit/admin"
	"github.com/collectionkit/kit/kit"
)

// Mount the admin app next to the API of the same Kit: the app signs in
// with kit's session cookie and calls the API at the Kit's prefix.
func Example() {
	k, err := kit.Open(context.Background(), kit.Config{
		SQLitePath: ":memory:admin-example",
		Schemas:    fstest.MapFS{"notes.json": {Data: []byte(`{"title": {"type": "string"}}`)}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	mux.Handle("/admin/", http.StripPrefix("/admin", admin.Handler(k)))

	srv := httptest.NewServer(mux)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/admin/teams/acme") // any app route answers the app's page
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"))
	// Output: 200 text/html; charset=utf-8
}
