# somni — see README.md. Every target is a thin wrapper; the logic lives in scripts/ and Go.
GO ?= go
BIN := bin/somni-sidecar

.PHONY: all build test test-go test-plugin bench eval models demo install vet fmt fmt-check

all: build

build:
	$(GO) build -o $(BIN) ./cmd/somni-sidecar

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w cmd internal

fmt-check:
	@out=$$(gofmt -l cmd internal); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

test: build fmt-check vet test-go test-plugin

test-go:
	$(GO) test -count=1 ./...

test-plugin:
	bash plugin-ts/scripts/test.sh

bench: build
	bash scripts/bench.sh

eval:
	$(GO) run ./cmd/somni-eval

models:
	bash scripts/models.sh

demo: build
	bash plugin-ts/scripts/demo.sh

install: build
	bash plugin-ts/scripts/install.sh $(PROFILE)
