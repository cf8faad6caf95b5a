// Command informer is the client-go reference peer for the watch benchmarks: it holds the same kinds
// in shared informers that the agent holds in its watches, so both can be measured against one
// cluster; with --accounts N, N independent sets of them, as an agent serving N accounts would;
// with an empty --kinds none at all, for the `apply` command alone (apply.go: server-side apply from
// a warm client, for the operation-latency benchmark). It speaks one JSON object per line on stdout;
// stdin carries the commands (`stats`, `gc`, `apply <JSON array>`), each answered by one line.
// Everything else, klog included, goes to stderr so stdout stays a clean protocol.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// As early as Go allows: main's package variables are set after the imported packages' init
// (client-go's scheme registration), so "ms to synced" covers client setup, list and watch, not
// exec and runtime start-up; the driver times spawn to synced for the whole.
var start = time.Now()

// One constructor per supported kind; each call registers the informer with the factory.
var kinds = map[string]func(informers.SharedInformerFactory) cache.SharedIndexInformer{
	"configmaps": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().ConfigMaps().Informer()
	},
	"pods": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().Pods().Informer()
	},
	"secrets": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().Secrets().Informer()
	},
	"services": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().Services().Informer()
	},
	"deployments": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Apps().V1().Deployments().Informer()
	},
	"replicasets": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Apps().V1().ReplicaSets().Informer()
	},
	"statefulsets": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Apps().V1().StatefulSets().Informer()
	},
	"daemonsets": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Apps().V1().DaemonSets().Informer()
	},
	"jobs": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Batch().V1().Jobs().Informer()
	},
	"cronjobs": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Batch().V1().CronJobs().Informer()
	},
	"networkpolicies": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Networking().V1().NetworkPolicies().Informer()
	},
	"ingresses": func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Networking().V1().Ingresses().Informer()
	},
}

func main() {
	// klog already defaults to stderr; pinned so a changed default can never corrupt the protocol.
	klog.LogToStderr(true)
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "informer: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", "", "path to the kubeconfig (required)")
	kindList := flag.String("kinds", "configmaps", "comma-separated kinds to inform on")
	latencyKey := flag.String("latency-key", "bench-ts", "ConfigMap data key holding the write time in epoch ms")
	accounts := flag.Int("accounts", 1, "sets of informers, each with its own clientset and factory, as an agent holds one per account")
	namespaceList := flag.String("namespaces", "", "comma-separated namespaces every account informs on, one factory each (default: every namespace, one factory)")
	ownNamespace := flag.String("own-namespace", "", "a namespace of each account's own besides --namespaces: a format taking the account's index, such as load-acct-%03d")
	flag.Parse()
	if *kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}

	if *accounts < 1 {
		return errors.New("--accounts must be at least 1")
	}

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	var factories []informers.SharedInformerFactory
	var stores []cache.Store
	latencies := &latencyLog{}
	for account := 0; account < *accounts; account++ {
		accountConfig := rest.CopyConfig(config)
		if *accounts > 1 {
			// client-go shares one transport (one connection pool) between clients whose TLS settings
			// are equal; in an agent each account is a cluster of its own, so each gets its own, as
			// the agent's accounts do. A Proxy function makes the config uncacheable.
			accountConfig.Proxy = http.ProxyFromEnvironment
		}
		client, err := kubernetes.NewForConfig(accountConfig)
		if err != nil {
			return err
		}
		// As the agent scopes an account with `namespaces`: one watch per kind and namespace.
		var scopes []string
		for _, namespace := range strings.Split(*namespaceList, ",") {
			if namespace = strings.TrimSpace(namespace); namespace != "" {
				scopes = append(scopes, namespace)
			}
		}
		if *ownNamespace != "" {
			scopes = append(scopes, fmt.Sprintf(*ownNamespace, account))
		}
		if len(scopes) == 0 {
			scopes = []string{metav1.NamespaceAll}
		}
		for i, namespace := range scopes {
			// Resync 0: a periodic resync would replay the store through the handlers and cost CPU the
			// agent does not spend.
			factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
			// Latency samples from the first account's first scope only: the others see the same writes.
			var handler cache.ResourceEventHandler
			if account == 0 && i == 0 {
				handler = latencies.handler(*latencyKey)
			}
			added, err := informOn(factory, *kindList, handler)
			if err != nil {
				return err
			}
			stores = append(stores, added...)
			factories = append(factories, factory)
		}
	}

	// Closed stdin means the driver is gone (even if it was SIGKILLed), so it ends the peer like a
	// signal does, during the sync too. The buffer lets the reader see EOF although commands sent
	// before the sync wait unread; the driver waits for each answer, so it never has many in flight.
	lines := make(chan string, 64)
	eof := make(chan struct{})
	go func() {
		scanner := bufio.NewScanner(os.Stdin)
		// An `apply` line carries its objects; the default 64 KiB limit would cut a large set.
		scanner.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
		close(eof)
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-eof:
		}
		close(done)
	}()

	for _, factory := range factories {
		factory.Start(done)
	}
	for _, factory := range factories {
		for _, ok := range factory.WaitForCacheSync(done) {
			// Not synced only when told to stop: the reflectors retry every failure, most of them
			// silently (an unreachable server is logged only at verbosity 2), until they succeed.
			if !ok {
				return nil
			}
		}
	}
	out := json.NewEncoder(os.Stdout)
	var apply *applier
	heap := readHeap()
	if err := out.Encode(map[string]any{
		"event":          "synced",
		"ms":             float64(time.Since(start).Microseconds()) / 1000,
		"objects":        countObjects(stores),
		"heapAllocBytes": heap.HeapAlloc,
		"heapInuseBytes": heap.HeapInuse,
	}); err != nil {
		return err
	}

	for {
		var reply map[string]any
		select {
		case <-ctx.Done():
			return nil
		case line, open := <-lines:
			if !open {
				return nil
			}
			command, payload, _ := strings.Cut(strings.TrimSpace(line), " ")
			switch command {
			case "stats":
				// Heap first: counting the objects allocates, and that garbage is ours, not the informers'.
				heap := readHeap()
				count, p50, p99, maxMs := latencies.drain()
				reply = map[string]any{
					"event": "stats", "count": count, "p50Ms": p50, "p99Ms": p99, "maxMs": maxMs,
					"heapAllocBytes": heap.HeapAlloc, "heapInuseBytes": heap.HeapInuse, "objects": countObjects(stores),
				}
			case "gc":
				runtime.GC()
				reply = map[string]any{"event": "gc"}
			case "apply":
				if apply == nil {
					if apply, err = newApplier(config); err != nil {
						return err
					}
				}
				reply = apply.command(ctx, payload)
			case "":
				continue
			default:
				return fmt.Errorf("unknown command %q", line)
			}
		}
		if err := out.Encode(reply); err != nil {
			return err
		}
	}
}

// readHeap does not force a GC: the figure is what the process holds as it runs, garbage
// included; the driver sends `gc` first when it wants the steady heap.
func readHeap() runtime.MemStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

func countObjects(stores []cache.Store) int {
	n := 0
	for _, s := range stores {
		n += len(s.ListKeys())
	}
	return n
}

// latencyLog collects write-to-handler delays; the handler runs on the informer's goroutine and
// drain on main's, hence the mutex.
type latencyLog struct {
	mu sync.Mutex
	ms []float64
}

func (l *latencyLog) handler(key string) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			// Objects from the initial list carry stamps from before this peer started; their age
			// says nothing about watch latency.
			if !isInInitialList {
				l.record(obj, "", key)
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			previous := ""
			if old, ok := oldObj.(*corev1.ConfigMap); ok {
				previous = old.Data[key]
			}
			l.record(newObj, previous, key)
		},
	}
}

// record notes now minus the stamp, unless the stamp is absent, unparsable, or unchanged from the
// previous version (an unrelated update must not count an old stamp twice).
func (l *latencyLog) record(obj any, previous, key string) {
	now := float64(time.Now().UnixMicro()) / 1000
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	stamp, present := cm.Data[key]
	if !present || stamp == previous {
		return
	}
	written, err := strconv.ParseFloat(stamp, 64)
	if err != nil {
		return
	}
	l.mu.Lock()
	l.ms = append(l.ms, now-written)
	l.mu.Unlock()
}

// drain returns the count and nearest-rank percentiles of the delays since the last drain, and
// starts a new window.
func (l *latencyLog) drain() (count int, p50, p99, maxMs float64) {
	l.mu.Lock()
	ms := l.ms
	l.ms = nil
	l.mu.Unlock()
	if len(ms) == 0 {
		return 0, 0, 0, 0
	}
	slices.Sort(ms)
	rank := func(q float64) float64 { return ms[int(math.Ceil(q*float64(len(ms))))-1] }
	return len(ms), rank(0.50), rank(0.99), ms[len(ms)-1]
}

// informOn starts an informer per kind named in kindList on the factory, and returns their stores;
// handler (when set) hears the ConfigMaps' events.
func informOn(factory informers.SharedInformerFactory, kindList string, handler cache.ResourceEventHandler) ([]cache.Store, error) {
	var stores []cache.Store
	seen := map[string]bool{}
	for _, name := range strings.Split(kindList, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		newInformer, ok := kinds[name]
		if !ok {
			return nil, fmt.Errorf("unknown kind %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(kinds)), ", "))
		}
		// The factory hands back the same informer for a repeated kind; counting it twice would
		// double the objects and the latency samples.
		if seen[name] {
			continue
		}
		seen[name] = true
		informer := newInformer(factory)
		if name == "configmaps" && handler != nil {
			if _, err := informer.AddEventHandler(handler); err != nil {
				return nil, err
			}
		}
		stores = append(stores, informer.GetStore())
	}
	return stores, nil
}
