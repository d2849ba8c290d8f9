# handover — common tasks. `make help` lists them.

SHELL := /bin/bash
BIN   := bin/handover
GO    ?= go
# Kubernetes versions whose node images the tests need.
TEST_VERSIONS ?= v1.30.14 v1.31.4

.PHONY: help build host images unit test integration smoke suites matrix scale aws azure lint clean rehearse bench

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

# The commit, for `handover version` and the reports, where the go command
# stamps none (GOFLAGS=-buildvcs=false, a git worktree); empty outside git.
REVISION = $(shell git rev-parse HEAD 2>/dev/null)$(if $(shell git status --porcelain 2>/dev/null | head -1),-dirty)

build: ## build the handover CLI into bin/
	$(GO) build -ldflags '-X github.com/handover-sh/handover/internal/version.revision=$(REVISION)' -o $(BIN) ./cmd/handover

host: build ## prepare this machine (Docker, runtime wrapper); needs root
	$(BIN) host prepare

images: host ## build the node images the tests need (cached)
	$(BIN) images build $(TEST_VERSIONS)

unit: ## unit tests only: no Docker needed
	$(GO) test -short ./...

# actionlint runs shellcheck on the workflows' scripts where it is installed
# (.ci/run installs it).
lint: ## gofmt, go vet, staticcheck and actionlint (tools of the module, pinned in go.mod) and the layering rules
	@test -z "$$(gofmt -l .)" || { echo "not gofmt'ed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) tool actionlint .github/workflows/*.yaml
	$(GO) test -count=1 ./internal/layering/

# Integration tests run verbosely so their measurements (MEASURED lines) and
# PASS/SKIP verdicts are in the log, and one package at a time: each creates
# clusters, and two at once on two cores would distort what they measure.
INTEGRATION_PKGS ?= ./clusters/kindcluster/ ./simulate/cloudcluster/ ./migrate/ ./simulate/cloudserver/amazon/
INTEGRATION_RUN  ?= Lifecycle|InTreeCloud|ExternalCloud|TaskDocMigration|TheProvidersRunAgainstTheFace

integration: images ## integration tests on real kind clusters
	HANDOVER_REQUIRE_INTEGRATION=1 $(GO) test -p 1 -count=1 -timeout 40m -v -run '$(INTEGRATION_RUN)' $(INTEGRATION_PKGS)

# The rehearsal suites (suites/, ginkgo): SUITE_LABELS picks them (smoke,
# rehearsal, faults); JUnit goes to _output/, each rehearsal's reports to
# _output/suites/<spec>/.
SUITE_LABELS ?= smoke
GINKGO       := $(GO) tool ginkgo

smoke: images ## the smoke rehearsal (CI runs it)
	HANDOVER_REQUIRE_INTEGRATION=1 $(GINKGO) -v --label-filter='smoke' --timeout=40m --junit-report=suites-smoke.xml --output-dir=_output ./suites

suites: images ## the rehearsal suites of SUITE_LABELS (e.g. make suites SUITE_LABELS='rehearsal || faults')
	HANDOVER_REQUIRE_INTEGRATION=1 $(GINKGO) -v --label-filter='$(SUITE_LABELS)' --timeout=6h --junit-report=suites.xml --output-dir=_output ./suites

# The version matrix: every pair of versions handover builds, three
# configurations each, and Azure's manager where azure is in tree (about 5
# minutes a rehearsal); needs every node image, built here on demand and
# cached. SHARD=NAME runs one version pair (bin/handover matrix --list) with
# its images only. Verdicts: _output/suites/matrix/verdicts.md, a shard's
# under matrix/NAME/ (bin/handover report merge joins the shards').
SHARD ?=
matrix: host ## the version matrix (SHARD=NAME: one version pair)
	$(if $(SHARD),v="$$($(BIN) matrix --versions $(SHARD))" && $(BIN) images build $$v,$(BIN) images build --all)
	HANDOVER_MATRIX_SHARD=$(SHARD) HANDOVER_REQUIRE_INTEGRATION=1 $(GINKGO) -v --label-filter='matrix' --timeout=8h --junit-report=suites-matrix.xml --output-dir=_output ./suites

# The scale suite: the task doc beside 100, 250 and 500 simulated nodes
# (kwok, built on demand and cached) under a throttled cloud. Figures:
# _output/suites/scale/figures.md.
scale: images ## the scale suite (simulated fleets of 100, 250 and 500 nodes)
	HANDOVER_REQUIRE_INTEGRATION=1 $(GINKGO) -v --label-filter='scale' --timeout=4h --junit-report=suites-scale.xml --output-dir=_output ./suites

# The AWS profile (nightly, not in `make test`: its two node images, v1.26.13
# and v1.27.4, take about 25 minutes to build cold): clusters whose kubelets
# and managers run the aws provider's own code (in-tree in v1.26, the
# cloud-provider-aws manager in v1.27) against the simulated EC2, ELB and
# instance metadata service. v1.29.15's (cloud-provider-aws v1.29.6) is the
# cluster describe reads and rehearse --like rehearses (suites/like_test.go).
AWS_VERSIONS ?= v1.26.13 v1.27.4 v1.29.15
aws: host ## the AWS profile: the providers against the simulated AWS APIs, its clusters' integration tests and rehearsals (builds its node images on demand)
	$(GO) test -count=1 -timeout 40m -v -run TestTheProvidersRunAgainstTheFace ./simulate/cloudserver/amazon/
	$(BIN) images build $(AWS_VERSIONS)
	HANDOVER_REQUIRE_INTEGRATION=1 $(GO) test -p 1 -count=1 -timeout 40m -v -run 'AWSCloud' ./providers/aws/
	HANDOVER_REQUIRE_INTEGRATION=1 $(GINKGO) -v --label-filter='aws' --timeout=2h --junit-report=suites-aws.xml --output-dir=_output ./suites

# Azure's own code (nightly, not in `make test`: its v1.29.15 node image and
# cloud-provider-azure's managers take about 9 minutes to build with a warm
# module cache): the providers driven against the simulated Resource Manager
# and metadata service, then Rancher's runbooks rehearsed from v1.29.15 to
# v1.30.14 with the in-tree azure provider and cloud-provider-azure v1.30.4.
AZURE_VERSIONS ?= v1.29.15 v1.30.14
azure: host ## Azure's own code: the providers against the simulated ARM, then its rehearsals (builds its images on demand)
	$(GO) test -count=1 -timeout 40m -v -run TestTheProvidersRunAgainstTheFace ./simulate/cloudserver/azure/
	$(BIN) images build --provider azure $(AZURE_VERSIONS)
	HANDOVER_REQUIRE_INTEGRATION=1 $(GINKGO) -v --label-filter='azure' --timeout=2h --junit-report=suites-azure.xml --output-dir=_output ./suites

# The unit tests run under the race detector here: the observers, load and
# faults are goroutines sharing a timeline.
test: images ## all tests: lint, unit (with -race), integration on real clusters, the smoke rehearsal
	$(MAKE) --no-print-directory lint
	$(GO) test -race -short -count=1 ./...
	cd simulate/cloudprovider && $(GO) test -race -short -count=1 ./...
	$(MAKE) --no-print-directory integration
	$(MAKE) --no-print-directory smoke

rehearse: host ## the main job: a default rehearsal, reports in _output/
	$(BIN) rehearse --out _output

# A short rehearsal whose figure of interest is what handover itself costs:
# its CPU (children and the simulated cloud's server included) and the
# host's CPU pressure, printed beside the verdict and in summary.md.
bench: host ## a short rehearsal (2 + 1, light load) reporting handover's own CPU and host CPU pressure
	$(BIN) rehearse --name bench --control-planes 2 --workers 1 --load light --out _output/bench

clean: ## remove build output (not the image cache)
	rm -rf bin
