# Quick start: `make demo` (simulation) and `make test` (the test suite).
# Both set up a virtual environment in .venv first; nothing else is needed
# but Python 3.11+ (on Debian/Ubuntu the venv module may need python3-venv,
# which the setup step installs when it can).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup test lint demo bench clean install uninstall lock

# Every layer plus the test and lint tools, at the tested versions.
EXTRAS      := kiosk,test,dev
CONSTRAINTS := constraints.txt

setup: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@sh .ci/setup-venv.sh "$(PYTHON)" "$(VENV)"
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[$(EXTRAS)]'
	@touch $(STAMP)

# on every core (pytest-xdist): each test runs in one worker, with its own tmp_path
test: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(BIN)/python -m pytest -n auto

# ruff and mypy, configured in pyproject.toml; clean on the whole tree.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

demo: $(STAMP)
	$(BIN)/tafl-kiosk --simulate --windowed --state .demo-state

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

# Rewrite constraints.txt from a fresh venv with the newest allowed versions
# (keeps its comment header); run the tests before committing the result.
lock:
	rm -rf build/lock-venv && $(PYTHON) -m venv build/lock-venv
	build/lock-venv/bin/python -m pip install --quiet '.[$(EXTRAS)]'
	{ grep '^#' $(CONSTRAINTS); build/lock-venv/bin/python -m pip freeze --exclude tafl-kiosk; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS) && rm -rf build/lock-venv

# Museum installation (see docs/install.md); DESTDIR installs into a test root.
install:
	bash systemd/install.sh $(if $(DESTDIR),--root "$(DESTDIR)") $(INSTALL_FLAGS)

uninstall:
	bash systemd/uninstall.sh $(if $(DESTDIR),--root "$(DESTDIR)") $(UNINSTALL_FLAGS)
