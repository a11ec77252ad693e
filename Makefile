# somni — see README.md. Every target is a thin wrapper; the logic lives in scripts/ and Go.
GO ?= go
BIN := bin/somni-sidecar
# One version for the binary and every npm package: the VERSION file, or SOMNI_VERSION=x.y.z make …
SOMNI_VERSION ?= $(shell tr -d ' \n' < VERSION)
export SOMNI_VERSION
LDFLAGS := -X github.com/somni-dev/somni/internal/sidecar.Version=$(SOMNI_VERSION)

.PHONY: all build check test test-tools test-scripts test-go test-plugin test-mcp-npm test-install test-browser screenshots test-qemu bench eval models demo dist install uninstall vet fmt fmt-check

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/somni-sidecar

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w cmd internal

fmt-check:
	@out=$$(gofmt -l cmd internal); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Every part below, each run whatever the ones before it did, then a table of all of them
# (scripts/test.sh); the run must leave `git status` as it found it.
test:
	bash scripts/test.sh

# What the suite needs beyond `make models` (apt's qemu and file, the pinned registry and MCP client,
# ONNX Runtime tarballs): checked, and installed when missing, by the script CI uses too.
test-tools:
	bash scripts/test-tools.sh

# Everyday: formatting, vet, the Go packages' own tests and the plugin's unit tests — everything but
# the binary-driven, harness, install and qemu suites.
check: build fmt-check vet
	$(GO) test -count=1 . ./internal/...
	bash plugin-ts/scripts/test.sh --unit

# Every package with cgo (the yalue ONNX binding), then the ones that touch ONNX Runtime again
# without it (purego), as every release binary is built. The binary's package drives real git rounds,
# kill -9 and full disks: on a loaded 2-core machine it outlasts go test's 10-minute default, which is
# a guard against a hang, not a target — 40m still ends a hung run well inside CI's budget.
test-go:
	$(GO) test -count=1 -timeout 40m ./...
	CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) test -count=1 ./internal/ort ./internal/embed ./internal/index ./internal/sidecar

# The suite's own scripts: make test's runner with a failing part, and the apt helper models.sh and
# test-tools.sh install through, against a held dpkg lock (root only).
test-scripts:
	bash scripts/test-scripts.sh

test-plugin:
	bash plugin-ts/scripts/test.sh

# `somni-sidecar mcp` driven by an independent MCP client from npm (the TypeScript SDK), compared
# tool by tool with the JSON-RPC path on the same data.
test-mcp-npm:
	bash scripts/test-mcp-npm.sh

# The packages as a user gets them: a local registry, `dsh plugin add dsh-somni`, one turn, upgrade, removal.
test-install:
	bash scripts/test-install.sh

# The web client's Memory tab of the installed plugin in headless Chromium (screenshots in the
# gitignored .cache/screenshots; `make screenshots` refreshes the committed docs/screenshots on purpose).
test-browser:
	bash scripts/test-browser.sh

screenshots:
	SOMNI_SCREENSHOTS=$(CURDIR)/docs/screenshots bash scripts/test-browser.sh

# The dist linux-arm64 package under qemu-aarch64 (needs qemu-user-static and the arm64 cross
# libc/libstdc++); runs on the dist/ test-install built.
test-qemu:
	bash scripts/test-qemu.sh

bench: build
	bash scripts/bench.sh

eval:
	$(GO) run ./cmd/somni-eval

models:
	bash scripts/models.sh

demo: build
	bash plugin-ts/scripts/demo.sh

# npm tarballs of the plugin, the 5 platform packages and the model package, into dist/.
dist:
	bash scripts/dist.sh

# make install PROFILE=web: add the dist packages to a DSH profile (a newer version replaces the old).
install: dist
	bash plugin-ts/scripts/install.sh $(PROFILE)

# make uninstall PROFILE=web: remove dsh-somni from a DSH profile (memory in $$DSH_HOME/somni stays).
uninstall:
	bash plugin-ts/scripts/install.sh --uninstall $(PROFILE)
