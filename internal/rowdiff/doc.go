// Package rowdiff fingerprints the rows of database tables, so that a
// test can count the rows a step added, removed or changed: the one
// implementation behind kittest's TableRows and Scenario's
// ExpectedRowsChanged, and behind the suites below kit (teamauth) that
// cannot import kittest. Tests only.
package rowdiff
