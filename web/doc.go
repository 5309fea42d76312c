// Package web holds kit's TypeScript packages, npm workspaces that know
// only kit's HTTP contract: client/ (@collectionkit/client, a
// framework-free fetch client) and vue/ (@collectionkit/vue, the spec's
// composables). It has no Go API; its test runs the packages' Vitest suite
// against a real kit serve, so the repository's one test command
// (go test ./...) covers them.
//
// # Running the web tests alone
//
//	cd web && npm ci && npm test
package web
