// Runs first, before the page is painted (a plain script in the head, not deferred): the
// "js" class that shows JavaScript-only controls and hides their no-JavaScript stand-ins is
// there from the first frame, so nothing appears or vanishes once the deferred scripts run.
document.documentElement.classList.add("js");
