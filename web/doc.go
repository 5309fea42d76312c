// Package web holds kit's TypeScript packages, npm workspaces that know
// only kit's HTTP contract: client/ (@collectionkit/client, a
// framework-free fetch client) and vue/ (@collectionkit/vue, the spec's
// composables and components), and admin/, the admin app. It has no Go
// API; its tests bring what Node.js runs into the repository's one test
// command (go test ./...):
//
//   - TestWebPackages runs the packages' Vitest suite against a real kit
//     serve: the clients, the components, the OpenAPI document through
//     @readme/openapi-parser, Spectral and openapi-typescript, and both
//     packages packed, installed into a fresh project outside the
//     workspace and run there;
//   - TestGeneratedTypeScriptCompiles type-checks what kit gen types
//     writes;
//   - TestDocsSite builds the documentation site (VitePress over ../docs)
//     and checks every link and anchor of its pages and of the README.
//
// Each skips, saying so, when Node.js is not installed.
//
// # Running the web tests alone
//
//	cd web && npm ci && npm test
//	npm run docs:build    # the site, into ../docs/.vitepress/dist
package web
