// Package jsonstring appends Go strings as JSON string literals, byte for
// byte what encoding/json writes without HTML escaping, and without
// reflection or allocation for the common plain strings. kit's record
// answers and the change stream's events build their JSON with it.
package jsonstring
