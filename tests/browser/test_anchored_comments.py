"""Commenting on a selection of the abstract in Chromium (static/js/anchors.js), under the CSP:
select, "Comment on this", post; after a reload the quote is highlighted and the highlight
leads to the comment. Selections that reach into typeset math count the math as its source."""

from __future__ import annotations

import pytest

from annotations.anchors import plain_text
from annotations.models import AnchorState, Comment
from tests.browser.journey_helpers import ConsoleWatch, log_in
from tests.factories import make_paper, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ABSTRACT = (
    "We train with the loss $x^2 + y$ that converges fast. "
    "Our \\emph{key idea} is gradient surgery across tasks.\n\n"
    "A second paragraph closes the abstract."
)

# Selects from `start_text`'s first character to the end of `end_text` in the abstract's text
# nodes (math typeset by KaTeX is not text the selection starts or ends in here).
SELECT = """([startText, endText]) => {
  const root = document.querySelector(".abstract-text");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let start = null, end = null, node;
  while ((node = walker.nextNode())) {
    if (node.parentElement.closest(".katex")) continue;
    if (!start && node.data.includes(startText)) start = [node, node.data.indexOf(startText)];
    if (node.data.includes(endText)) end = [node, node.data.indexOf(endText) + endText.length];
  }
  const range = document.createRange();
  range.setStart(start[0], start[1]);
  range.setEnd(end[0], end[1]);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}"""


def _comment_on(page, start_text: str, end_text: str, body: str) -> None:
    page.evaluate(SELECT, [start_text, end_text])
    page.click(".anchor-button")
    page.wait_for_selector("[data-anchor-preview]:not([hidden])")
    # The comment box has the focus, the quote above it.
    assert page.evaluate("document.activeElement.name") == "body"
    page.keyboard.type(body)
    page.click("#paper-comments form[data-anchor-form] button:has-text('Post comment')")
    page.wait_for_selector(f"#paper-comments .comment-body:has-text('{body}')")


def test_select_comment_and_see_the_highlight_after_reload(page, live_server, screenshot):
    make_user("erin")
    paper = make_paper("Anchored paper", abstract=ABSTRACT)
    watch = ConsoleWatch().attach(page)
    log_in(page, live_server, "erin")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    page.wait_for_selector(".abstract-text .katex")

    _comment_on(page, "key idea", "surgery", "Is this new?")
    # Across typeset math: the quote holds the math's source, as the server counts it.
    _comment_on(page, "the loss", "that", "Why squared?")
    # Dropping the quote before posting leaves a comment about the whole paper.
    page.evaluate(SELECT, ["second paragraph", "closes"])
    page.click(".anchor-button")
    page.click("[data-anchor-drop]")
    page.fill("#paper-comments form[data-anchor-form] textarea[name=body]", "General remark")
    page.click("#paper-comments form[data-anchor-form] button:has-text('Post comment')")
    page.wait_for_selector("#paper-comments .comment-body:has-text('General remark')")

    text = plain_text(ABSTRACT)
    surgery, loss, general = Comment.objects.order_by("pk")
    assert surgery.quote == "key idea is gradient surgery"
    assert loss.quote == "the loss $x^2 + y$ that"
    assert surgery.quote_start == text.index(surgery.quote)
    assert loss.quote_start == text.index(loss.quote)
    assert {surgery.anchor_state, loss.anchor_state} == {AnchorState.ATTACHED}
    assert (general.quote, general.anchor_state) == ("", "")

    page.reload()
    mark = page.wait_for_selector(f"mark#anchor-{surgery.pk}")
    assert mark.inner_text() == "key idea"  # the first of its marks: <em> splits the quote
    marked = page.eval_on_selector_all(
        f".abstract-text mark[data-comment='{surgery.pk}']",
        "marks => marks.map(m => m.textContent)",
    )
    assert "".join(marked) == "key idea is gradient surgery"
    # The math inside the other quote is marked whole, typeset.
    assert page.locator(f"mark[data-comment='{loss.pk}'] .katex").count() == 1
    assert page.locator(f"#comment-{surgery.pk} blockquote a[href='#anchor-{surgery.pk}']").count()
    screenshot("anchored-comments")

    # The highlight leads to its comment.
    page.evaluate("window.scrollTo(0, 0)")
    page.click(f"mark#anchor-{surgery.pk}")
    page.wait_for_selector(f"#comment-{surgery.pk}.anchor-target")
    in_view = page.evaluate(
        f"""() => {{
        const box = document.getElementById("comment-{surgery.pk}").getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
    }}"""
    )
    assert in_view
    assert watch.problems == []


def test_a_quote_inside_typeset_math_is_not_highlighted_but_still_shown(page, live_server):
    user = make_user("fred")
    paper = make_paper("Math quote paper", abstract=ABSTRACT)
    text = plain_text(ABSTRACT)
    # Part of an expression: KaTeX's output has no text to mark for it.
    Comment.objects.create(
        author=user,
        paper=paper,
        body="Why squared?",
        quote="x^2",
        quote_start=text.index("x^2"),
        anchor_state=AnchorState.ATTACHED,
    )
    watch = ConsoleWatch().attach(page)
    log_in(page, live_server, "fred")
    page.goto(f"{live_server.url}{paper.get_absolute_url()}")
    page.wait_for_selector(".abstract-text .katex")
    page.wait_for_load_state("load")
    assert page.locator(".abstract-text mark").count() == 0
    quote = page.locator("#paper-comments blockquote .anchor-link")
    assert quote.inner_text() == "“x^2”"
    assert quote.get_attribute("href") is None  # nothing to go to
    assert watch.problems == []
