import Foundation
import MarginaliaTestSupport
import Testing

/// Debian's Chromium, which `scripts/check_report.py` drives through Playwright (never a downloaded browser).
let chromiumPath = ProcessInfo.processInfo.environment["CHROMIUM"] ?? "/usr/bin/chromium"

/// Whether the browser tests must run (`.ci/run` sets `MARGINALIA_BROWSER_TESTS=required`): they then fail when
/// Chromium or Playwright is missing, instead of being skipped.
let browserTestsRequired = ProcessInfo.processInfo.environment["MARGINALIA_BROWSER_TESTS"] == "required"

/// Whether Chromium is here and the test venv's Python imports Playwright.
let hasBrowser: Bool = FileManager.default.isExecutableFile(atPath: chromiumPath)
    && (try? ChildProcess("\(testVenv)/bin/python", ["-c", "import playwright.sync_api"]).run().status) == 0

/// `marginalia report` opened in headless Chromium: three devices syncing through a folder, an import, deletions,
/// a revert and hostile notes. The page must show every change of `log --json` exactly once, the per-device totals
/// of `log --json` and `devices --json`, verify's verdict and head; run no script but its own; make no request;
/// and read with JavaScript off.
@Suite(.serialized, .enabled(if: hasBrowser || browserTestsRequired)) struct ReportBrowserTests {
    static let passage = "mai-am-un-singur-dor.1"
    /// Notes that try to run script, each in its own way; the check fails if `window.pwned` or the title changes.
    static let hostileNotes = [
        "<script>window.pwned = 1; document.title = 'pwned'</script>",
        "<img src=x onerror=\"window.pwned = 2; document.title = 'pwned'\">",
        "<a href=\"javascript:window.pwned = 3\">click me</a>",
        "harmless\u{202E}txt.exe reversed",
        "\"><svg onload=window.pwned=5>",
    ]

    @Test func aStoreOfThreeDevicesOpensInChromiumWithEveryChangeOnceAndNoScriptButItsOwn() throws {
        #expect(hasBrowser, "chromium and playwright (in \(testVenv)) must be installed (see .ci/run)")
        guard hasBrowser else { return }
        let workspace = try CLIWorkspace()
        let folder = workspace.path("Sync")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let laptop = workspace.store
        let phone = try workspace.newStore("phone.db")
        let tablet = try workspace.newStore("tablet.db")
        func ok(_ store: String, _ arguments: [String]) throws -> String {
            try workspace.ok(["--store", store] + arguments)
        }
        let names = [laptop: "laptop", phone: "phone", tablet: "tablet <b>onerror=x</b>"]
        var notes: [String: [String]] = [:]
        for store in [laptop, phone, tablet] {
            _ = try ok(store, ["device", "name", names[store] ?? ""])
            notes[store] = try (1...2).map { try ok(store, ["note", Self.passage, "din \(names[store] ?? "") \($0)"]) }
        }
        try workspace.admit(phone, by: laptop, folder: folder)
        try workspace.admit(tablet, by: laptop, folder: folder)
        for _ in 0..<2 { for store in [laptop, phone, tablet] { _ = try ok(store, ["sync", folder]) } }

        // An import: the tablet's archive, with a note made after the last round.
        _ = try ok(tablet, ["note", "noi-amandoi-avem-acelasi-dascal.1", "adusă prin import", "--tag", "<i>tag</i>"])
        _ = try ok(tablet, ["export", workspace.path("tablet <export>.jsonl.gz")])
        _ = try ok(laptop, ["import", workspace.path("tablet <export>.jsonl.gz")])
        // Deletions on two devices, a revert, hostile notes.
        let laptopNote = try #require(notes[laptop]?.first)
        _ = try ok(phone, ["delete", laptopNote])
        _ = try ok(laptop, ["delete", try #require(notes[laptop]?.last)])
        let edited = try #require(notes[phone]?.first)
        _ = try ok(phone, ["edit", edited, "--note", "a doua formă"])
        _ = try ok(phone, ["edit", edited, "--note", "a treia formă", "--tag", "revizuit"])
        let history = try #require(try JSONSerialization.jsonObject(
            with: Data(ok(phone, ["history", edited, "--json"]).utf8)) as? [[String: Any]])
        let first = try #require(history.first?["changeId"] as? String)
        _ = try ok(phone, ["revert", edited, "--to", first])
        for note in Self.hostileNotes { _ = try ok(phone, ["note", "mai-am-un-singur-dor.2", note]) }
        for _ in 0..<2 { for store in [laptop, phone, tablet] { _ = try ok(store, ["sync", folder]) } }

        let report = workspace.path("report.html")
        let written = try workspace.run(["--store", laptop, "report", report])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.isEmpty)
        #expect(written.stderr.hasPrefix("Wrote \(report): "))
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(!html.contains("<script>window.pwned"))
        #expect(html.contains("&lt;script&gt;window.pwned"))
        #expect(html.contains("harmless&lt;U+202E&gt;txt.exe"))
        #expect(!html.contains("\u{202E}"))
        for (name, arguments) in [("log", ["log"]), ("devices", ["devices"]), ("verify", ["verify"])] {
            try Data(ok(laptop, ["--json"] + arguments).utf8).write(to: URL(fileURLWithPath: workspace.path(
                "\(name).json")))
        }
        let devices = try #require(try JSONSerialization.jsonObject(
            with: Data(ok(laptop, ["--json", "devices"]).utf8)) as? [[String: Any]])
        #expect(devices.count == 3)
        let imports = try ok(laptop, ["imports"])
        #expect(imports.contains(" import ") && imports.contains(" sync "))

        let screenshots = ProcessInfo.processInfo.environment["MARGINALIA_REPORT_SCREENSHOTS"]
            ?? workspace.path("screenshots")
        let checked = try ChildProcess("\(testVenv)/bin/python", [
            "\(scriptsDirectory)/check_report.py", report, "--log", workspace.path("log.json"),
            "--devices", workspace.path("devices.json"), "--verify", workspace.path("verify.json"), "--hostile",
            "--screenshots", screenshots,
        ], environment: ProcessInfo.processInfo.environment.merging(["CHROMIUM": chromiumPath]) { $1 }).run()
        #expect(checked.status == 0, "check_report.py: \(checked.stdout)\n\(checked.stderr)")
        let found = try #require(try checked.json() as? [String: Any])
        #expect(found["changesShown"] as? Int == found["changesInLog"] as? Int)
        #expect(found["requests"] as? [Any] != nil && (found["requests"] as? [Any])?.isEmpty == true)
        #expect(FileManager.default.fileExists(atPath: "\(screenshots)/narrow-320.png"))
    }
}
