"""Paint bench: from the tool-result message to the root painted, in chromium.

The widget (the template exactly as `resources/read` serves it, in a sandboxed
srcdoc iframe under the spec's default CSP) is fed the real root result of a
`m1nd serve` over the demo store. The baseline, in the same page and run, is a
frame that writes the same result's text card into a `<pre>`. Each sample
starts when the host posts the message and ends when a probe inside the frame,
registered after the frame's own handler, sees the next frame painted
(requestAnimationFrame, then a task); the same probe also notes when style and
layout were done (forced at once, so that figure does not wait for a frame).
Runs alternate between the two, each after a random delay of up to one frame
so that neither is locked to a phase of the display's 60 Hz clock; the figures
are the medians of each, and the ratios widget / baseline.

    tests/browser/run.sh bench [--runs N]
"""

from __future__ import annotations

import argparse
import gzip
import random
import statistics
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

import harness

CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; media-src 'self' data:; connect-src 'none'"
)
BASELINE = """<!doctype html><html><head><meta charset="utf-8"></head><body><pre id="card"></pre>
<script>
window.addEventListener("message", (e) => {
  const m = e.data;
  if (e.source === window.parent && m && m.method === "ui/notifications/tool-result")
    document.getElementById("card").textContent = m.params.content[0].text;
});
</script></body></html>"""
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>paint bench</title></head><body>
<iframe id="widget" sandbox="allow-scripts" style="width:760px;height:900px;border:0"></iframe>
<iframe id="baseline" sandbox="allow-scripts" style="width:760px;height:900px;border:0"></iframe>
<script>
window.ready = false;
window.addEventListener("message", (e) => {
  const m = e.data;
  const widget = document.getElementById("widget").contentWindow;
  if (e.source !== widget || !m) return;
  if (m.method === "ui/initialize")
    widget.postMessage({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2026-01-26",
      hostInfo: { name: "bench", version: "1" }, hostCapabilities: { serverTools: {} },
      hostContext: { theme: "light" } } }, "*");
  if (m.method === "ui/notifications/initialized") window.ready = true;
});
</script></body></html>"""
PROBE = """() => window.addEventListener("message", (e) => {
  if (!e.data || e.data.method !== "ui/notifications/tool-result") return;
  document.body.getBoundingClientRect();  // style and layout, forced now
  const laid = performance.timeOrigin + performance.now();
  requestAnimationFrame(() => setTimeout(() =>
    window.parent.postMessage({ laid, painted: performance.timeOrigin + performance.now() }, "*")));
})"""
SAMPLE = """([id, result, delay]) => new Promise((resolve) => setTimeout(() => {
  const frame = document.getElementById(id).contentWindow;
  let start = 0;
  const done = (e) => {
    if (e.source !== frame || !e.data || e.data.painted === undefined) return;
    window.removeEventListener("message", done);
    resolve([e.data.laid - start, e.data.painted - start]);
  };
  window.addEventListener("message", done);
  start = performance.timeOrigin + performance.now();
  frame.postMessage({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result }, "*");
}, delay))"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    runs = max(1, min(parser.parse_args().runs, 1000))

    with tempfile.TemporaryDirectory(prefix="m1nd-paint-") as tmp:
        mcp = harness.Mcp(harness.init_store(Path(tmp) / "store"))
        try:
            cockpit = next(t for t in mcp.request("tools/list", {})["result"]["tools"] if t["name"] == "cockpit")
            uri = cockpit["_meta"]["ui"]["resourceUri"]
            template = mcp.request("resources/read", {"uri": uri})["result"]["contents"][0]["text"]
            result = mcp.call("cockpit", {})
        finally:
            mcp.close()

    policy = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=harness.CHROMIUM, args=harness.CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1600, "height": 960})
        page.set_content(PAGE)
        page.evaluate(
            "([w, b]) => { document.getElementById('widget').srcdoc = w; document.getElementById('baseline').srcdoc = b; }",
            [template.replace("<head>", "<head>" + policy), BASELINE.replace("<head>", "<head>" + policy)],
        )
        page.wait_for_function("window.ready")
        frames = {}
        for name in ("widget", "baseline"):
            frames[name] = page.locator(f"#{name}").element_handle().content_frame()
            frames[name].wait_for_load_state()
            frames[name].evaluate(PROBE)
        times: dict[str, list[list[float]]] = {"widget": [], "baseline": []}
        jitter = random.Random(1)
        for name in ("widget", "baseline"):  # warm-up, not counted
            for _ in range(5):
                page.evaluate(SAMPLE, [name, result, 0])
        for _ in range(runs):
            for name in ("widget", "baseline"):
                times[name].append(page.evaluate(SAMPLE, [name, result, jitter.uniform(0, 16.7)]))
        drawn = frames["widget"].evaluate("document.querySelectorAll('button.entry').length")
        shown = frames["baseline"].evaluate("document.getElementById('card').textContent")
        browser.close()

    entries = len(result["structuredContent"]["entries"])
    assert drawn == entries and shown == result["content"][0]["text"], "the frames did not draw the root"
    size = len(template.encode())
    print(f"template: {size} bytes ({size / 1024:.1f} KiB; {len(gzip.compress(template.encode()))} bytes gzipped)")
    for index, what in ((1, "root painted"), (0, "root laid out")):
        widget = statistics.median(t[index] for t in times["widget"])
        baseline = statistics.median(t[index] for t in times["baseline"])
        print(
            f"{what} after tool-result, median of {runs}: widget {widget:.2f} ms, "
            f"<pre> text card {baseline:.2f} ms, ratio {widget / baseline:.2f}x"
        )

if __name__ == "__main__":
    main()
