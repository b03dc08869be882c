// refserve dev: show this page anew once the content it shows has been
// rendered again, and show a content error over it until it is fixed.
// Served by `refserve dev` only; production pages load no script.
//
// The new page is fetched and put in place of the old one (its head and
// body), which shows it sooner than a reload and keeps the scroll position
// and this script's event stream; anything but an HTML page (an error, a
// changed media type) reloads instead.
"use strict";
(() => {
  const events = new EventSource("/_refserve/events");
  // Marked for tests and tools: this page hears of the next edit.
  events.addEventListener("open", () => {
    document.documentElement.dataset.refserveDev = "listening";
  });
  events.addEventListener("reload", () => refresh().catch(() => location.reload()));
  // A page left for another keeps no connection (browsers allow six per
  // server); one shown again from the back-forward cache may be stale.
  addEventListener("pagehide", () => events.close());
  addEventListener("pageshow", (event) => {
    if (event.persisted) location.reload();
  });
  events.addEventListener("invalid", (event) => show(event.data));

  async function refresh() {
    const response = await fetch(location.href, { headers: { accept: "text/html" }, cache: "no-store" });
    const type = response.headers.get("content-type") || "";
    if (!response.ok || !type.startsWith("text/html")) {
      location.reload();
      return;
    }
    const next = new DOMParser().parseFromString(await response.text(), "text/html");
    document.head.replaceWith(next.head);
    document.body.replaceWith(next.body);
  }

  function show(message) {
    let overlay = document.getElementById("refserve-dev-error");
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.id = "refserve-dev-error";
      overlay.setAttribute("role", "alert");
      Object.assign(overlay.style, {
        position: "fixed",
        inset: "0",
        zIndex: "2147483647",
        overflow: "auto",
        padding: "2rem",
        background: "rgba(24, 24, 27, 0.97)",
        color: "#fafafa",
        font: "16px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
      });
      const title = document.createElement("h2");
      title.textContent = "The content does not build";
      // Every style set here: the page's own would apply otherwise.
      Object.assign(title.style, {
        margin: "0 0 1rem", padding: "0", border: "0", color: "#fca5a5", font: "inherit", fontWeight: "bold",
      });
      const text = document.createElement("pre");
      Object.assign(text.style, {
        margin: "0", padding: "1rem", border: "0", borderRadius: "6px", whiteSpace: "pre-wrap",
        background: "#27272a", color: "#fafafa", font: "inherit",
      });
      const hint = document.createElement("p");
      hint.textContent = "The page shows the last content that built. Fix the file and save: this page updates.";
      Object.assign(hint.style, { margin: "1rem 0 0", padding: "0", color: "#d4d4d8", font: "inherit" });
      overlay.append(title, text, hint);
      document.body.append(overlay);
    }
    overlay.querySelector("pre").textContent = message;
  }
})();
