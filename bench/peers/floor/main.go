// Command floor is the stored path's floor for the watch benchmarks: the least a program must do to
// have a cluster's objects stored in PostgreSQL. It lists the same kinds the agent watches, every
// namespace, by pages as client-go's paginated list does (500 per page), and streams each kind's
// objects into one COPY on its own connection while the next page is being listed (a page is
// decoded and queued while the previous one is still being written). The rows go into a table
// shaped like cloudctl's `resources` (its key and base columns; not the read model's columns nor
// the watch sequence, which are features, not the floor). When every COPY has committed it prints
// one JSON line on stdout, `{"event":"synced",...}`, then waits for stdin to close (or SIGTERM), so
// the driver can read its memory and CPU at leisure. Errors go to stderr with a non-zero exit.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// As early as Go allows, as in the informer peer: the driver times spawn to synced for the whole.
var start = time.Now()

// What a row says of its kind, and where the kind is listed in every namespace.
type kind struct {
	path, group, version, kind string
}

var kinds = map[string]kind{
	"configmaps": {path: "/api/v1/configmaps", group: "", version: "v1", kind: "ConfigMap"},
	"pods":       {path: "/api/v1/pods", group: "", version: "v1", kind: "Pod"},
}

// cloudctl's `resources` as its first migration and 0012 leave it: the same key, the body as text.
const createTable = `create table if not exists resources (
	account text not null, api_group text not null, api_version text not null, kind text not null,
	namespace text not null, name text not null, resource_version text not null, body text not null,
	snapshot_id text, updated_at timestamptz not null,
	constraint resources_pk primary key (account, api_group, kind, namespace, name))`

var columns = []string{
	"account", "api_group", "api_version", "kind", "namespace", "name", "resource_version", "body",
	"snapshot_id", "updated_at",
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "floor: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfig := flag.String("kubeconfig", "", "path to the kubeconfig (required)")
	database := flag.String("database", "", "PostgreSQL URL (required)")
	kindList := flag.String("kinds", "configmaps,pods", "comma-separated kinds to list and store")
	limit := flag.Int("limit", 500, "objects per page")
	account := flag.String("account", "bench", "the account column of every row")
	flag.Parse()
	if *kubeconfig == "" || *database == "" {
		return errors.New("--kubeconfig and --database are required")
	}
	var wanted []kind
	for _, name := range strings.Split(*kindList, ",") {
		k, ok := kinds[strings.TrimSpace(name)]
		if !ok {
			return fmt.Errorf("unknown kind %q (known: configmaps, pods)", name)
		}
		wanted = append(wanted, k)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// Closed stdin means the driver is gone: stop, during the sync too.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(config)
	if err != nil {
		return err
	}
	setup, err := pgx.Connect(ctx, *database)
	if err != nil {
		return err
	}
	_, err = setup.Exec(ctx, createTable)
	setup.Close(ctx)
	if err != nil {
		return err
	}

	results := make(chan result, len(wanted))
	for _, k := range wanted {
		go func() {
			n, err := store(ctx, client, config.Host, *database, k, *limit, *account)
			results <- result{n, err}
		}()
	}
	objects := 0
	for range wanted {
		r := <-results
		if r.err != nil {
			return r.err
		}
		objects += r.objects
	}
	if err := json.NewEncoder(os.Stdout).Encode(map[string]any{
		"event":   "synced",
		"ms":      float64(time.Since(start).Microseconds()) / 1000,
		"objects": objects,
	}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

type result struct {
	objects int
	err     error
}

// store lists one kind page by page on one goroutine and copies its rows on another, one COPY (one
// transaction) for the whole kind; it returns the rows committed.
func store(ctx context.Context, client *http.Client, host, database string, k kind, limit int, account string) (int, error) {
	conn, err := pgx.Connect(ctx, database)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// One page queued while the previous one is written: listing and copying overlap, and memory
	// stays at two pages.
	pages := make(chan [][]any, 1)
	listed := make(chan error, 1)
	go func() {
		defer close(pages)
		listed <- list(ctx, client, host, k, limit, account, pages)
	}()
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"resources"}, columns, &pageRows{pages: pages})
	if err != nil {
		cancel()
		return 0, err
	}
	if err := <-listed; err != nil {
		return 0, err
	}
	return int(copied), nil
}

// list sends each page's rows to `pages` until the list's last page.
func list(ctx context.Context, client *http.Client, host string, k kind, limit int, account string, pages chan<- [][]any) error {
	snapshot := fmt.Sprintf("floor-%d", time.Now().UnixNano())
	next := ""
	for {
		query := url.Values{"limit": {fmt.Sprint(limit)}}
		if next != "" {
			query.Set("continue", next)
		}
		page, err := get(ctx, client, host+k.path+"?"+query.Encode())
		if err != nil {
			return err
		}
		now := time.Now()
		rows := make([][]any, 0, len(page.Items))
		for _, item := range page.Items {
			var head objectHead
			if err := json.Unmarshal(item, &head); err != nil {
				return fmt.Errorf("%s: an item is not an object: %w", k.path, err)
			}
			m := head.Metadata
			rows = append(rows, []any{
				account, k.group, k.version, k.kind, m.Namespace, m.Name, m.ResourceVersion, []byte(item), snapshot, now,
			})
		}
		select {
		case pages <- rows:
		case <-ctx.Done():
			return ctx.Err()
		}
		next = page.Metadata.Continue
		if next == "" {
			return nil
		}
	}
}

type listPage struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

type objectHead struct {
	Metadata struct {
		Name            string `json:"name"`
		Namespace       string `json:"namespace"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

func get(ctx context.Context, client *http.Client, target string) (*listPage, error) {
	request, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	request.Header.Set("Accept", "application/json")
	response, err := client.Do(request)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(bufio.NewReaderSize(response.Body, 64*1024))
	if err != nil {
		return nil, err
	}
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d: %s", target, response.StatusCode, body)
	}
	var page listPage
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, fmt.Errorf("GET %s: %w", target, err)
	}
	return &page, nil
}

// pageRows is the COPY's source: the rows of each page as it comes, until the lister is done.
type pageRows struct {
	pages <-chan [][]any
	rows  [][]any
	at    int
}

func (p *pageRows) Next() bool {
	for p.at >= len(p.rows) {
		rows, open := <-p.pages
		if !open {
			return false
		}
		p.rows, p.at = rows, 0
	}
	p.at++
	return true
}

func (p *pageRows) Values() ([]any, error) { return p.rows[p.at-1], nil }

func (p *pageRows) Err() error { return nil }
