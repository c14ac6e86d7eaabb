// Paper suggestions under any <input data-suggest-url="...">: an ARIA 1.2 combobox with a
// listbox popup (list autocomplete, no automatic selection).
//
// The server renders the options (papers.suggest, templates/papers/_suggestions.html); this
// file asks for them 150 ms after the last keystroke, drops answers to older text (and aborts
// their requests), and handles the keyboard: ArrowDown/ArrowUp move through the options,
// Enter picks the highlighted one, Escape closes the list. Picking does what the input's
// data-suggest-action says:
//   "open": go to the paper's page;
//   "fill": put the paper's number into the input (or into the field named by the CSS
//           selector in data-suggest-target, within the same form) and submit the form.
// Enter with no option highlighted submits the form as typed, as it does without JavaScript.
// Listeners sit on the document, so boxes that htmx swaps in work without setting up again.
(function () {
  "use strict";

  var INPUT = "input[data-suggest-url]";
  var DEBOUNCE_MS = 150;
  var boxes = new WeakMap(); // input -> its state (popup, timer, request in flight)
  var counter = 0;
  var refocusId = null; // a filled box whose form htmx replaces gets the focus back

  function box(input) {
    var state = boxes.get(input);
    if (state) {
      return state;
    }
    if (!input.id) {
      counter += 1;
      input.id = "suggest-input-" + counter;
    }
    var popup = document.createElement("div");
    popup.className = "suggest-popup";
    popup.hidden = true;
    var listbox = document.createElement("ul");
    listbox.className = "suggestions";
    listbox.id = input.id + "-suggestions";
    listbox.setAttribute("role", "listbox");
    listbox.setAttribute("aria-label", "Suggested papers");
    var note = document.createElement("p");
    note.className = "suggestions-message";
    note.hidden = true;
    popup.appendChild(listbox);
    popup.appendChild(note);
    // Screen readers hear how many papers are suggested; the list itself is not announced.
    var status = document.createElement("p");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", listbox.id);
    input.setAttribute("autocomplete", "off");

    state = {
      input: input,
      popup: popup,
      listbox: listbox,
      note: note,
      status: status,
      timer: null,
      request: null,
      asked: "", // the text of the latest request
      moving: false,
    };
    boxes.set(input, state);

    // The popup is placed under the input itself (not under a help text after it): both go
    // into a positioned wrapper. Moving a focused input blurs it (htmx gives a swapped-in box
    // the focus back): the blur is not a user leaving the box, and the focus is restored.
    var anchor = document.createElement("span");
    anchor.className = "suggest-anchor";
    var focused = document.activeElement === input;
    state.moving = true;
    input.insertAdjacentElement("beforebegin", anchor);
    anchor.appendChild(input);
    anchor.appendChild(popup);
    anchor.insertAdjacentElement("afterend", status);
    state.moving = false;
    if (focused) {
      input.focus();
    }
    return state;
  }

  function options(state) {
    return Array.prototype.slice.call(state.listbox.querySelectorAll("[role=option]"));
  }

  function active(state) {
    return state.listbox.querySelector("[role=option][aria-selected=true]");
  }

  function highlight(state, option) {
    options(state).forEach(function (each) {
      each.setAttribute("aria-selected", each === option ? "true" : "false");
    });
    if (option) {
      state.input.setAttribute("aria-activedescendant", option.id);
      option.scrollIntoView({ block: "nearest" });
    } else {
      state.input.removeAttribute("aria-activedescendant");
    }
  }

  function close(state) {
    highlight(state, null);
    state.popup.hidden = true;
    state.input.setAttribute("aria-expanded", "false");
  }

  function isOpen(state) {
    return state.input.getAttribute("aria-expanded") === "true";
  }

  function cancel(state) {
    window.clearTimeout(state.timer);
    state.timer = null;
    if (state.request) {
      state.request.abort();
      state.request = null;
    }
  }

  function show(state, html) {
    var answer = document.createElement("template");
    answer.innerHTML = html;
    var found = answer.content.querySelectorAll("[role=option]");
    var message = answer.content.querySelector(".suggestions-message");
    // An answer that lands after the arrow keys picked a paper keeps that paper picked when
    // it is still offered: the member's choice does not jump away under the keyboard.
    var picked = active(state);
    var pickedPaper = picked ? picked.getAttribute("data-paper-id") : null;
    state.listbox.replaceChildren();
    Array.prototype.forEach.call(found, function (option, index) {
      option.id = state.listbox.id + "-" + index;
      option.setAttribute("aria-selected", "false");
      state.listbox.appendChild(option);
    });
    state.note.textContent = message ? message.textContent : "";
    state.note.hidden = !message;
    state.input.removeAttribute("aria-activedescendant");
    var kept = pickedPaper
      ? options(state).filter(function (option) {
          return option.getAttribute("data-paper-id") === pickedPaper;
        })[0]
      : null;
    state.popup.hidden = !found.length && !message;
    state.input.setAttribute("aria-expanded", found.length ? "true" : "false");
    state.status.textContent = message
      ? message.textContent
      : found.length === 1
        ? "1 paper suggested."
        : found.length + " papers suggested.";
    if (kept) {
      highlight(state, kept);
    }
    typesetMath(state.listbox);
  }

  function typesetMath(element) {
    // The page's typesetting (js/math.js), which renders each expression on its own.
    if (window.PaperMath && typeof window.PaperMath.typeset === "function") {
      window.PaperMath.typeset(element);
    }
  }

  function ask(state) {
    cancel(state);
    var text = state.input.value;
    state.asked = text;
    if (!text.trim()) {
      close(state);
      return;
    }
    var url = new URL(state.input.getAttribute("data-suggest-url"), window.location.href);
    url.searchParams.set("q", text);
    var request = new AbortController();
    state.request = request;
    fetch(url, { credentials: "same-origin", signal: request.signal })
      .then(function (response) {
        return response.ok ? response.text() : "";
      })
      .then(function (html) {
        // An answer to text that has changed since is dropped (its request may have ended
        // before the next keystroke aborted it).
        if (state.request === request && state.input.value === text) {
          state.request = null;
          show(state, html);
        }
      })
      .catch(function (error) {
        if (error.name !== "AbortError") {
          close(state);
        }
      });
  }

  function pick(state, option) {
    var action = state.input.getAttribute("data-suggest-action");
    cancel(state);
    close(state);
    if (action === "open") {
      window.location.assign(option.getAttribute("data-paper-url"));
      return;
    }
    if (action === "fill") {
      var form = state.input.form;
      var selector = state.input.getAttribute("data-suggest-target");
      var target = selector && form ? form.querySelector(selector) : state.input;
      (target || state.input).value = option.getAttribute("data-paper-id");
      if (form) {
        refocusId = state.input.id;
        form.requestSubmit();
      }
    }
  }

  function move(state, step) {
    var all = options(state);
    if (!all.length) {
      return;
    }
    var index = all.indexOf(active(state)) + step;
    // Past either end the highlight wraps round, as in the ARIA pattern's examples.
    if (index >= all.length) {
      index = 0;
    } else if (index < 0) {
      index = all.length - 1;
    }
    highlight(state, all[index]);
  }

  function boxOf(target) {
    return target instanceof Element && target.matches(INPUT) ? box(target) : null;
  }

  document.addEventListener("input", function (event) {
    var state = boxOf(event.target);
    if (!state) {
      return;
    }
    cancel(state);
    state.timer = window.setTimeout(function () {
      ask(state);
    }, DEBOUNCE_MS);
  });

  document.addEventListener("keydown", function (event) {
    var state = boxOf(event.target);
    if (!state || event.isComposing) {
      return;
    }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!isOpen(state)) {
        // A closed list opens on the arrows: with what was last shown for this text, or anew.
        if (options(state).length && state.asked === state.input.value) {
          state.popup.hidden = false;
          state.input.setAttribute("aria-expanded", "true");
        } else {
          ask(state);
          return;
        }
      }
      move(state, event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter" && isOpen(state) && active(state)) {
      event.preventDefault();
      pick(state, active(state));
    } else if (event.key === "Enter") {
      cancel(state);
      close(state);
    } else if (event.key === "Escape" && !state.popup.hidden) {
      event.preventDefault();
      cancel(state);
      close(state);
    }
  });

  // mousedown would move the focus out of the box (and close the list) before the click.
  document.addEventListener("mousedown", function (event) {
    if (event.target instanceof Element && event.target.closest(".suggest-popup")) {
      event.preventDefault();
    }
  });

  document.addEventListener("click", function (event) {
    var option =
      event.target instanceof Element && event.target.closest(".suggest-popup [role=option]");
    if (!option) {
      return;
    }
    var input = option.closest(".suggest-anchor").querySelector(INPUT);
    if (input) {
      pick(box(input), option);
    }
  });

  document.addEventListener("focusout", function (event) {
    var state = boxOf(event.target);
    if (state && !state.moving) {
      cancel(state);
      close(state);
    }
  });

  // Each box is a combobox from the start (its role, aria-expanded), not from the first key:
  // those on the page, and those htmx swaps in.
  function setUpWithin(root) {
    if (root.matches && root.matches(INPUT)) {
      box(root);
    }
    root.querySelectorAll(INPUT).forEach(box);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      setUpWithin(document);
    });
  } else {
    setUpWithin(document);
  }

  document.addEventListener("htmx:load", function (event) {
    setUpWithin(event.target);
  });

  document.addEventListener("htmx:afterSettle", function () {
    if (refocusId) {
      var input = document.getElementById(refocusId);
      refocusId = null;
      if (input && input.matches(INPUT)) {
        input.focus();
      }
    }
  });
})();
