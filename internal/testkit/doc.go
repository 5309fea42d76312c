// Package testkit is the layer kit's own suites (kit, events, external,
// cmd/kit) add on the public test kit, kittest: worlds of teams, users and
// records seeded once per test binary and cloned per test on every engine
// (World, Worlds), served over HTTP as a Site whose requests go out as a
// seeded user by name; and two concurrency helpers (AtOnce, Buffer).
// Requests, body checks, {placeholders} and row fingerprints are
// kittest's; nothing here repeats them. Tests only.
package testkit
