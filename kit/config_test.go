package kit_test

import (
	"log/slog"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/kit"
	"github.com/collectionkit/kit/teamauth"
)

func TestConfigIsTheConfigurationInForce(t *testing.T) {
	t.Run("a zero Config gets kit's defaults", func(t *testing.T) {
		cfg0 := kit.Config{SQLitePath: memPath(t)}
		k := newKitConfig(t, cfg0)
		got := k.Config()
		if got.Prefix != "/api" || got.MaxBodyBytes != 1<<20 || got.DefaultLayer != "app" {
			t.Errorf("got Prefix %q, MaxBodyBytes %d, DefaultLayer %q, want /api, %d, app", got.Prefix, got.MaxBodyBytes, got.DefaultLayer, 1<<20)
		}
		if got.Limits != collections.DefaultQueryLimits() {
			t.Errorf("Limits: got %+v, want %+v", got.Limits, collections.DefaultQueryLimits())
		}
		if got.Logger == nil || got.Directory == nil || got.Authenticator == nil {
			t.Errorf("got Logger %v, Directory %v, Authenticator %v, want each set", got.Logger, got.Directory, got.Authenticator)
		}
		if got.Directory != teamauth.Directory(k.Accounts()) {
			t.Errorf("Directory: got %T, want kit's own accounts", got.Directory)
		}
		if got.DB != nil || got.SQLitePath != cfg0.SQLitePath {
			t.Errorf("got DB %v and SQLitePath %q, want them as given (nil, %q): k.DB() is the database in use", got.DB, got.SQLitePath, cfg0.SQLitePath)
		}
	})
	t.Run("what the host set is kept", func(t *testing.T) {
		logger := slog.New(slog.DiscardHandler)
		cfg := kit.Config{SQLitePath: memPath(t), Prefix: "/v1", MaxBodyBytes: 4096, DefaultLayer: "shop", Dev: true, Logger: logger,
			Limits: collections.QueryLimits{MaxPageSize: 7}, SearchScans: 3,
			CORS: kit.CORSConfig{AllowedOrigins: []string{"https://app.example.com"}, MaxAge: time.Minute}}
		k := newKitConfig(t, cfg)
		got := k.Config()
		want := collections.DefaultQueryLimits()
		want.MaxPageSize = 7
		if got.Prefix != "/v1" || got.MaxBodyBytes != 4096 || got.DefaultLayer != "shop" || !got.Dev || got.Logger != logger || got.SearchScans != 3 || got.Limits != want {
			t.Errorf("got %+v, want the values set", got)
		}
		if !reflect.DeepEqual(got.CORS, cfg.CORS) {
			t.Errorf("CORS: got %+v, want %+v", got.CORS, cfg.CORS)
		}
	})
	t.Run("changing the copy changes nothing in the Kit", func(t *testing.T) {
		k := newKitConfig(t, kit.Config{SQLitePath: memPath(t), CORS: kit.CORSConfig{AllowedOrigins: []string{"https://app.example.com"}},
			Middleware: []func(http.Handler) http.Handler{func(h http.Handler) http.Handler { return h }}})
		c := k.Config()
		c.CORS.AllowedOrigins[0] = "https://evil.example"
		c.Middleware[0] = nil
		c.Prefix = "/elsewhere"
		again := k.Config()
		if again.CORS.AllowedOrigins[0] != "https://app.example.com" || again.Middleware[0] == nil || again.Prefix != "/api" {
			t.Errorf("got %v, %v, %q after changing a copy, want the Kit's own values", again.CORS.AllowedOrigins, again.Middleware, again.Prefix)
		}
	})
	t.Run("the deprecated accessors answer as Config does", func(t *testing.T) {
		k := newKitConfig(t, kit.Config{SQLitePath: memPath(t), Dev: true, Prefix: "/v2"})
		c := k.Config()
		if k.Prefix() != c.Prefix || k.Dev() != c.Dev || k.Logger() != c.Logger || k.Limits() != c.Limits {
			t.Errorf("got %q %v %v %+v, want Config's %q %v %v %+v", k.Prefix(), k.Dev(), k.Logger(), k.Limits(), c.Prefix, c.Dev, c.Logger, c.Limits)
		}
	})
}
