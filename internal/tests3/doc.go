// Package tests3 starts a real S3-compatible server for tests: SeaweedFS
// ("weed server -s3"), once per test process, on free ports in a
// temporary directory, with one identity whose keys it returns. The
// binary is KIT_TEST_S3_SERVER or "weed" on PATH (.ci/run builds it);
// without it the tests that ask for a server skip, saying so.
package tests3
