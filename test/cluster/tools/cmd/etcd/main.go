// Command etcd is the upstream etcd server, built from go.etcd.io/etcd/server/v3
// at the version kube-apiserver itself pins, so the test cluster runs the pair
// Kubernetes releases are tested with.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
