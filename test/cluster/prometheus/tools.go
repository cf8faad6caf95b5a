//go:build tools

// Prometheus itself, the server the Prometheus analysis provider is tested against, built from its
// Go module at the version go.mod pins (test/tools/go-binary.ts builds the `cmd/prometheus` package
// of this module's graph; this file only keeps the requirement in go.mod). Built with the
// `remove_all_sd` tag: the cloud service discoveries, which a test scraping 127.0.0.1 never uses,
// are most of the build.
package tools

import _ "github.com/prometheus/prometheus/cmd/prometheus"
