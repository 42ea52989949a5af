#!/usr/bin/env python3
"""Opens a `marginalia report` page in headless Chromium and checks it against the store's own JSON.

    check_report.py REPORT.html --log LOG.json --devices DEVICES.json --verify VERIFY.json \
        [--hostile] [--screenshots DIR]

LOG.json, DEVICES.json and VERIFY.json are what `marginalia --json log`, `devices` and `verify` print for the
same store. Checked: every change of the log appears exactly once (as a `data-change` element) and nothing else
does; each device's total equals its changes in the log and in `devices --json`; the verdict and the chain head
equal verify's; no script but the page's own runs (hostile notes try to set `window.pwned` and the title), no
console error or page error; no request leaves the file; the page's filter script works; with JavaScript off the
verdict and the device table still read; at 320 px nothing is wider than the screen. With --hostile, the hostile
texts must be shown as text. Prints what it found as JSON; exits 1 on any failure.

Uses Debian's Chromium (/usr/bin/chromium, or $CHROMIUM), never a downloaded browser.
"""
import argparse
import collections
import json
import os
import sys

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--log", required=True)
    parser.add_argument("--devices", required=True)
    parser.add_argument("--verify", required=True)
    parser.add_argument("--hostile", action="store_true", help="the store holds the hostile notes")
    parser.add_argument("--screenshots", help="directory for desktop.png, annotations.png and narrow-320.png")
    options = parser.parse_args()
    with open(options.log, encoding="utf-8") as file:
        log = json.load(file)
    with open(options.devices, encoding="utf-8") as file:
        devices = json.load(file)
    with open(options.verify, encoding="utf-8") as file:
        verify = json.load(file)
    url = "file://" + os.path.abspath(options.report)
    failures = []
    found = {}

    def expect(condition, message):
        if not condition:
            failures.append(message)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        requests, messages = [], []
        page.on("request", lambda request: requests.append(request.url) if request.url != url else None)
        page.on("console", lambda message: messages.append(f"console {message.type}: {message.text}"))
        page.on("pageerror", lambda error: messages.append(f"page error: {error}"))
        page.on("dialog", lambda dialog: (messages.append(f"dialog: {dialog.message}"), dialog.dismiss()))
        # Anything but the file itself is refused, and counted above.
        context.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
        page.goto(url, wait_until="load")
        page.wait_for_timeout(300)

        # Every change once, and only the log's.
        shown = page.eval_on_selector_all("[data-change]", "nodes => nodes.map(n => n.dataset.change)")
        counted = collections.Counter(shown)
        log_ids = [change["changeId"] for change in log]
        found["changesShown"] = len(shown)
        found["changesInLog"] = len(log_ids)
        expect(len(set(log_ids)) == len(log_ids), "the log lists a change twice")
        expect(not [i for i, n in counted.items() if n != 1], f"changes shown more than once: "
               f"{[i for i, n in counted.items() if n != 1][:5]}")
        expect(set(shown) == set(log_ids), f"changes missing: {sorted(set(log_ids) - set(shown))[:5]}; "
               f"not in the log: {sorted(set(shown) - set(log_ids))[:5]}")

        # Each device's total: the report's, the log's and devices --json's.
        totals = page.eval_on_selector_all(
            "#devices tbody tr[data-device]", "rows => rows.map(r => [r.dataset.device, Number(r.dataset.total),"
            " Number(r.querySelector('.total').textContent)])")
        by_log = collections.Counter(change["device"] for change in log)
        by_devices = {device["id"]: device["changes"] for device in devices if device["changes"] > 0}
        found["deviceTotals"] = {device: total for device, total, _ in totals}
        expect({device: total for device, total, _ in totals} == dict(by_log),
               f"device totals {totals} differ from log --json {dict(by_log)}")
        expect({device: total for device, total, _ in totals} == by_devices,
               f"device totals {totals} differ from devices --json {by_devices}")
        expect(all(total == text for _, total, text in totals), "a device's shown total differs from its data")
        expect(page.text_content("#total-changes").strip() == str(len(log_ids)), "the total differs from the log")

        # The verdict and the head, as verify --json says.
        verdict = page.get_attribute("#verdict", "data-ok")
        found["verdict"] = page.text_content("#verdict").strip()
        expect(verdict == ("true" if verify["ok"] else "false"), f"verdict {verdict}, verify says {verify['ok']}")
        expect(page.text_content("#head-seq").strip() == str(verify["head"]["seq"]), "the head's seq differs")
        expect(page.text_content("#head-digest").strip() == verify["head"]["digest"], "the head's digest differs")

        # Nothing hostile ran, nothing left the file, nothing complained.
        pwned = page.evaluate("() => [typeof window.pwned, document.title]")
        found["pwned"] = pwned
        expect(pwned == ["undefined", "Marginalia audit report"], f"a hostile script ran: {pwned}")
        expect(page.eval_on_selector_all("[onerror], [onclick], [onload]", "n => n.length") == 0,
               "an element carries an event handler attribute")
        expect(page.eval_on_selector_all("a[href^='javascript:' i]", "n => n.length") == 0, "a javascript: link")
        expect(page.eval_on_selector_all("script", "n => n.length") == 1, "more than the report's own script")
        expect(page.eval_on_selector_all("img, iframe, object, embed", "n => n.length") == 0, "an embedded element")
        found["requests"] = requests
        found["messages"] = messages
        expect(not requests, f"requests other than the file: {requests}")
        expect(not messages, f"console or page errors: {messages}")
        text = page.inner_text("body")
        if options.hostile:
            for shown_text in ["<script>", "onerror", "javascript:", "<U+202E>"]:
                expect(shown_text in text, f"the hostile text {shown_text!r} is not shown as text")
            expect("\u202e" not in text, "a U+202E reached the page's text")

        # The page's own script runs under its policy: the filter box hides what does not match.
        annotations = page.eval_on_selector_all("details.annotation", "n => n.length")
        found["annotations"] = annotations
        expect(page.locator("#filter").count() == 1, "the filter box is missing: the page's own script did not run")
        if annotations and page.locator("#filter").count() == 1:
            page.fill("#filter", "no annotation says zzqqxx")
            hidden = page.eval_on_selector_all("details.annotation[hidden]", "n => n.length")
            expect(hidden == annotations, f"the filter hid {hidden} of {annotations}")
            page.fill("#filter", "")

        structure = page.evaluate("""() => ({
            header: !!document.querySelector('header'), main: !!document.querySelector('main'),
            nav: !!document.querySelector('nav'), h1: document.querySelectorAll('h1').length,
            thWithoutScope: [...document.querySelectorAll('thead th, tbody th')].filter(t => !t.scope).length,
            csp: document.querySelector('meta[http-equiv=Content-Security-Policy]')?.content || ''})""")
        found["structure"] = structure
        expect(structure["header"] and structure["main"] and structure["nav"], "a landmark is missing")
        expect(structure["h1"] == 1, "not one h1")
        expect(structure["thWithoutScope"] == 0, "a header cell without scope")
        expect("default-src 'none'" in structure["csp"] and "script-src 'sha256-" in structure["csp"],
               f"the policy is not strict: {structure['csp']}")
        if options.screenshots:
            os.makedirs(options.screenshots, exist_ok=True)
            page.screenshot(path=os.path.join(options.screenshots, "desktop.png"))
            # The annotations, opened: each version with its field diffs.
            page.eval_on_selector_all("details.annotation", "n => n.slice(0, 4).forEach(d => d.open = true)")
            page.locator("#documents").scroll_into_view_if_needed()
            page.evaluate("() => document.getElementById('documents').scrollIntoView()")
            page.screenshot(path=os.path.join(options.screenshots, "annotations.png"))
            page.eval_on_selector_all("details.annotation", "n => n.forEach(d => d.open = false)")
            page.evaluate("() => window.scrollTo(0, 0)")

        # 320 px wide: nothing wider than the screen.
        page.set_viewport_size({"width": 320, "height": 900})
        width = page.evaluate("() => document.documentElement.scrollWidth")
        found["scrollWidthAt320"] = width
        expect(width <= 320, f"the page is {width} px wide at 320 px")
        if options.screenshots:
            page.screenshot(path=os.path.join(options.screenshots, "narrow-320.png"))
        context.close()

        # JavaScript off: the verdict and the device table still read.
        still = browser.new_context(java_script_enabled=False)
        still.route("**/*", lambda route: route.continue_() if route.request.url == url else route.abort())
        page = still.new_page()
        page.goto(url, wait_until="load")
        expect(page.is_visible("#verdict") and "OK" in page.inner_text("#verdict") if verify["ok"]
               else page.is_visible("#verdict"), "without JavaScript the verdict does not read")
        rows = page.locator("#devices tbody tr").count()
        found["deviceRowsWithoutJavaScript"] = rows
        expect(rows == len(totals) and page.is_visible("#devices"), "without JavaScript the device table is missing")
        expect(page.locator("#filter").count() == 0, "without JavaScript a filter box appeared")
        still.close()
        browser.close()

    found["failures"] = failures
    print(json.dumps(found, indent=2, ensure_ascii=True))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
