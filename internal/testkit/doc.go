// Package testkit holds the HTTP and database helpers that the kit,
// events, external and command test suites share: serving kit's API,
// sending a request, a buffer safe for concurrent writes, expanding
// {placeholders} into seeded ids, and fingerprinting table rows so a test
// can count the rows a request added, removed or changed. Tests only.
package testkit
