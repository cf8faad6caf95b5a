//go:build tools

// pprof, the reader the pprof server's tests hand each profile to, built from its Go module at the
// version go.mod pins (test/tools/go-binary.ts builds this module's `github.com/google/pprof`
// command ahead of the tests; this file only keeps the requirement in go.mod). Go's distribution no
// longer ships `go tool pprof` prebuilt: run from a test, it compiled pprof inside the test's timeout.
package tools

import _ "github.com/google/pprof"
