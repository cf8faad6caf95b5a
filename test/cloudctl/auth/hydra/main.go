// Ory Hydra, the OpenID Connect provider the sign-in tests run against, built from its Go module
// at the version go.mod pins (the same entry point as Hydra's own main package).
package main

import "github.com/ory/hydra/v2/cmd"

func main() {
	cmd.Execute()
}
