"""A PDF too long to index is kept but not read, and its reader never outlives its limit or
the worker that started it (security issue 43, finding 10).

A 1.6 MB file of 10,000 pages held the text worker for its whole time limit, and a worker
killed meanwhile left its pypdf child reading on, re-parented, for as long as the file took.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.urls import reverse

from pdfs import texts
from pdfs.extraction import Failure, count_pages
from pdfs.models import PdfText
from tests.factories import make_paper
from tests.pdf_files import make_long_pdf, make_pdf
from tests.pdf_storing import store_test_pdf

BASE_DIR = Path(__file__).resolve().parent.parent
# 1.6 MB; in the child, its declared page count is read within 0.9 s (child start included,
# loaded machine); walking its page tree takes 1.4 s and reading its text 7 s (idle machine).
LONG_PDF = make_long_pdf(10_000)


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def read_text(paper) -> PdfText:
    texts.extract_paper_text(paper.pk)
    return PdfText.objects.get(pdf__paper=paper)


@pytest.mark.django_db
def test_a_10000_page_pdf_is_kept_but_marked_too_long_within_a_short_limit(settings, client):
    # A sixth of the default: ten times what counting the pages takes here (0.7-0.9 s on a
    # machine at load 6 on 2 cores), less than reading the text.
    settings.PDF_TEXT_TIMEOUT = 10
    paper = make_paper()
    store_test_pdf(paper, LONG_PDF)

    text = read_text(paper)

    assert text.failure == Failure.TOO_LONG == "too long to index"
    assert text.message == "10,000 pages, more than the limit of 500"
    assert text.page_count == 10_000 and text.text == ""
    # Stored and served all the same.
    served = client.get(reverse("pdfs:file", args=[paper.pk]))
    assert served.status_code == 200
    assert b"".join(served.streaming_content) == LONG_PDF


@pytest.mark.django_db
def test_the_page_limit_is_counted_before_reading(settings):
    settings.PDF_TEXT_MAX_PAGES = 3
    at_limit, over = make_paper("Three pages"), make_paper("Four pages")
    store_test_pdf(at_limit, make_pdf("A page.", pages=3))
    store_test_pdf(over, make_pdf("A page.", pages=4))

    assert read_text(at_limit).failure == "" and read_text(at_limit).page_count == 3
    assert read_text(over).failure == Failure.TOO_LONG and read_text(over).page_count == 4


@pytest.mark.django_db
def test_a_pdf_that_declares_fewer_pages_than_it_has_is_counted_page_by_page(settings):
    settings.PDF_TEXT_MAX_PAGES = 3
    paper = make_paper()
    store_test_pdf(paper, make_long_pdf(10, declared=1))

    text = read_text(paper)

    assert text.failure == Failure.TOO_LONG and text.page_count == 10


@pytest.mark.django_db
def test_a_pdf_over_the_size_limit_is_not_even_read(settings, monkeypatch):
    pdf = make_pdf("A page.")
    at_limit, over = make_paper("At the limit"), make_paper("Over it")
    store_test_pdf(at_limit, pdf)
    store_test_pdf(over, pdf + b"\n%" + b"x" * 100)
    settings.PDF_TEXT_MAX_BYTES = len(pdf)

    assert read_text(at_limit).failure == ""
    monkeypatch.setattr(texts, "extract_text", lambda *a, **k: pytest.fail("a child started"))
    text = read_text(over)
    assert text.failure == Failure.TOO_LONG
    assert text.message.endswith(f"more than the limit of {len(pdf):,} bytes")


@pytest.mark.django_db
def test_curators_see_which_pdfs_are_too_long_to_index(settings, admin_client):
    settings.PDF_TEXT_MAX_PAGES = 3
    long_paper, short_paper = make_paper("Four pages"), make_paper("One page")
    store_test_pdf(long_paper, make_pdf("A page.", pages=4))
    store_test_pdf(short_paper, make_pdf("A page."))
    read_text(long_paper), read_text(short_paper)

    listed = admin_client.get(
        reverse("admin:pdfs_pdftext_changelist"), {"failure": "too long to index"}
    ).content.decode()

    assert "too long to index" in listed
    assert f"PDF of paper {long_paper.pk}</a>" in listed
    assert f"PDF of paper {short_paper.pk}</a>" not in listed


def test_an_uploads_pages_are_counted_without_reading_its_text():
    counted = count_pages(LONG_PDF, timeout=30, memory_mb=512)

    assert counted.failure is None and counted.page_count == 10_000 and counted.pages == []


# --- The child process -------------------------------------------------------------------

# Reads LONG_PDF's text with no page limit and a long time limit, as a worker would.
WORKER = """
import sys
from pdfs.extraction import extract_text
from tests.pdf_files import make_long_pdf
print("reading", flush=True)
extract_text(make_long_pdf(10_000), timeout=120, memory_mb=1024, max_chars=10**9, max_pages=10**6)
"""


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            # "pid (name) state ppid ...": the name may hold spaces, so split after it.
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def is_running(pid: int) -> bool:
    """Whether `pid` still runs: a zombie (dead, not yet reaped by its new parent) does not."""
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return state != "Z"


def cpu_seconds(pid: int) -> float:
    """User and system time `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.mark.slow  # child processes
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_killed_with_sigkill_takes_its_reader_with_it():
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER],
        cwd=BASE_DIR,
        env={"PYTHONPATH": str(BASE_DIR)},
        stdout=subprocess.PIPE,
    )
    reader: list[int] = []
    try:
        assert worker.stdout is not None and worker.stdout.readline() == b"reading\n"
        assert wait_for(lambda: reader.extend(children_of(worker.pid)) or reader, 30)
        # Reading the PDF's pages, past its start (0.3 s) and the end of its input: a child
        # killed while its input still came would stop at the input's end whatever we do.
        assert wait_for(lambda: cpu_seconds(reader[0]) > 1, 60)

        worker.send_signal(signal.SIGKILL)
        worker.wait(10)

        # Reading the text takes 7 s or more: a reader left behind is still there after 2 s.
        assert wait_for(lambda: not is_running(reader[0]), 2), "the reader outlived its worker"
    finally:
        worker.kill()
        worker.wait()
        for pid in reader:  # only on failure: the reader this test started
            if is_running(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow  # a child process reading for two seconds of CPU
def test_the_reader_stops_itself_at_its_cpu_limit_when_nobody_kills_it():
    """The third guard, for a system without PR_SET_PDEATHSIG: given 1 s, the child is
    stopped by the kernel after 2 s of CPU time (reading all the text takes 7 s)."""
    child = subprocess.run(
        [sys.executable, "-m", "pdfs.extraction", str(os.getpid()), "1024", "1"]
        + [str(10**9), str(10**6)],
        input=LONG_PDF,
        capture_output=True,
        cwd=BASE_DIR,
        env={"PYTHONPATH": str(BASE_DIR)},
        timeout=120,
        check=False,
    )

    assert child.returncode == -signal.SIGXCPU
