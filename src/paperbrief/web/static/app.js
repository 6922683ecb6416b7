// Small enhancements; every page works without them.
"use strict";

// Grow the digest frame to its content so the page scrolls as one document.
function fitFrame(frame) {
  try {
    const doc = frame.contentDocument;
    if (!doc || !doc.documentElement) return;
    frame.style.height = doc.documentElement.scrollHeight + 24 + "px";
  } catch (error) {
    // Cross-origin or sandboxed without same-origin: keep the CSS height.
  }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const frame of document.querySelectorAll("iframe.digest-frame")) {
    const fit = () => {
      fitFrame(frame);
      setTimeout(() => fitFrame(frame), 500); // after images load
    };
    frame.addEventListener("load", fit);
    // On a fast server the frame can finish loading before this listener exists.
    const doc = frame.contentDocument;
    if (doc && doc.readyState === "complete" && doc.URL !== "about:blank") fit();
    window.addEventListener("resize", () => fitFrame(frame));
  }
  for (const picker of document.querySelectorAll("form[data-day-picker] select")) {
    picker.addEventListener("change", () => {
      window.location.href = "/ranking/" + encodeURIComponent(picker.value);
    });
  }
});
