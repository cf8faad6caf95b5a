module github.com/orch-agent/orch-agent/test/agent/observability/pprof

go 1.26.7

require github.com/google/pprof v0.0.0-20261016150608-1facf8f91b50

require (
	github.com/chzyer/readline v1.5.1 // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20250417193237-f615e6bd150b // indirect
	golang.org/x/sys v0.32.0 // indirect
)
