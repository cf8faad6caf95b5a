// Command promcheck reads Prometheus text exposition from stdin, parses it with the reference
// parser (expfmt) and lints it with promlint, the checks behind `promtool check metrics`. It prints
// one line per problem and exits 1 if there are any, 2 if the input does not parse.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		os.Exit(2)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(data)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "parse:", err)
		os.Exit(2)
	}
	problems, err := promlint.New(strings.NewReader(string(data))).Lint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lint:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Printf("%s: %s\n", p.Metric, p.Text)
	}
	fmt.Printf("families %d\n", len(families))
	if len(problems) > 0 {
		os.Exit(1)
	}
}
