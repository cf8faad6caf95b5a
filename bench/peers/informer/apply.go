// The peer's `apply` command: server-side apply from a warm client-go program, the reference for
// bench/ops-latency. `apply <JSON array of objects>` applies each object in the order given, one
// request after another, with the dynamic client (field manager bench-go, force), and answers the
// milliseconds the applies took. The clients are made on the first command, so warm-up runs pay for
// discovery and the connection, as a long-running deploy tool pays for them once.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

const applyFieldManager = "bench-go"

type applier struct {
	client dynamic.Interface
	mapper meta.RESTMapper
}

func newApplier(config *rest.Config) (*applier, error) {
	config = rest.CopyConfig(config)
	// client-go's default limiter (5 requests a second, bursts of 10) would hold back the second
	// run of ten applies; a deploy tool raises it, and the comparison must not count a wait the
	// client imposes on itself.
	config.QPS = -1
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	// Discovery once, kept in memory: how a running client maps kinds to resources.
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discoveryClient))
	return &applier{client: client, mapper: mapper}, nil
}

func (a *applier) applyAll(ctx context.Context, objects []*unstructured.Unstructured) error {
	for _, object := range objects {
		gvk := object.GroupVersionKind()
		mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s %s: %w", gvk.Kind, object.GetName(), err)
		}
		var resource dynamic.ResourceInterface = a.client.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			resource = a.client.Resource(mapping.Resource).Namespace(object.GetNamespace())
		}
		options := metav1.ApplyOptions{FieldManager: applyFieldManager, Force: true}
		if _, err := resource.Apply(ctx, object.GetName(), object, options); err != nil {
			return fmt.Errorf("%s %s/%s: %w", gvk.Kind, object.GetNamespace(), object.GetName(), err)
		}
	}
	return nil
}

// command answers one `apply` line. A failure is an answer, not the peer's end: the driver reports it.
func (a *applier) command(ctx context.Context, payload string) map[string]any {
	var items []map[string]any
	if err := json.Unmarshal([]byte(payload), &items); err != nil {
		return map[string]any{"event": "applied", "error": fmt.Sprintf("not a JSON array of objects: %v", err)}
	}
	objects := make([]*unstructured.Unstructured, len(items))
	for i, item := range items {
		objects[i] = &unstructured.Unstructured{Object: item}
	}
	// Timed from objects in memory, as a program holding them would start.
	started := time.Now()
	if err := a.applyAll(ctx, objects); err != nil {
		return map[string]any{"event": "applied", "error": err.Error()}
	}
	ms := float64(time.Since(started).Microseconds()) / 1000
	return map[string]any{"event": "applied", "ms": ms, "objects": len(objects)}
}
