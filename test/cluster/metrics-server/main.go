// metrics-server, the metrics.k8s.io source of the pod-metrics tests, built from its Go module at the
// version go.mod pins (the same entry point as metrics-server's own main package). It scrapes kwok's
// simulated kubelet resource metrics, so the agent reads a real aggregated API, not a stand-in.
package main

import (
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/logs"

	"sigs.k8s.io/metrics-server/cmd/metrics-server/app"
)

func main() {
	logs.InitLogs()
	defer logs.FlushLogs()
	cmd := app.NewMetricsServerCommand(genericapiserver.SetupSignalHandler())
	if err := cmd.Execute(); err != nil {
		panic(err)
	}
}
