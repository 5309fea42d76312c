package kit

import (
	"maps"
	"slices"

	"github.com/collectionkit/kit/collections"
)

// Config returns a copy of the configuration in force: the Config given
// to Open with its defaults filled in where kit chooses them at Open —
// Prefix ("/api"), MaxBodyBytes (1 MiB), Limits (every field set, see
// [collections.QueryLimits.WithDefaults]), DefaultLayer ("app"), Logger
// (slog.Default()), Directory (kit's own accounts) and Authenticator (the
// context user, then a bearer token, then the session cookie). Other zero
// fields mean their documented defaults. DB and SQLitePath are as given
// (k.DB() is the database in use), Definitions those given to Open
// (Register's are in Collections()). The slices and maps are copies:
// changing them changes nothing in k.
func (k *Kit) Config() Config {
	c := k.cfg
	c.Limits = k.limits
	c.Logger = k.logger
	if c.DefaultLayer == "" {
		c.DefaultLayer = collections.DefaultLayer
	}
	c.Definitions = slices.Clone(c.Definitions)
	c.Collections = maps.Clone(c.Collections)
	c.Middleware = slices.Clone(c.Middleware)
	c.CORS.AllowedOrigins = slices.Clone(c.CORS.AllowedOrigins)
	c.CORS.AllowedMethods = slices.Clone(c.CORS.AllowedMethods)
	c.CORS.AllowedHeaders = slices.Clone(c.CORS.AllowedHeaders)
	c.Accounts.TrustedOrigins = slices.Clone(c.Accounts.TrustedOrigins)
	return c
}
