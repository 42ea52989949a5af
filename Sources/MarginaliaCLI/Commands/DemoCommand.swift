import Foundation
import Marginalia

/// `demo`: a tour of marginalia on the bundled sample, run as real commands in a scratch directory.
enum DemoCommand {
    static let command = Command(
        spec: CommandSpec(
            name: "demo", summary: "Tour marginalia on the bundled sample, in a fresh temporary directory.",
            discussion: """
                Runs real marginalia commands and shows each with its output: builds the sample content (edition 1), \
                makes a store, highlights and annotates Eminescu's poems, searches without diacritics, swaps the \
                content for edition 2 (the store's bytes do not change), accounts for every annotation and \
                re-anchors the ones whose text moved, shows an annotation's history, backs up, restores on a \
                "second machine" and merges its notes back. It never touches your own store.
                """,
            options: [.init(name: "dir", value: "DIR",
                            help: "Work in DIR (created if needed) instead of a temporary directory.")],
            examples: ["marginalia demo", "marginalia demo --dir tour"]),
        run: { context in
            let directory: String
            if let given = context.arguments.value("dir") {
                directory = (given as NSString).standardizingPath
            } else {
                directory = FileManager.default.temporaryDirectory
                    .appendingPathComponent("marginalia-demo-\(UUID().uuidString.prefix(8))").path
            }
            try PrivateFiles.createDirectories(directory)
            let tour = try Tour(directory: directory, console: context.console)
            try tour.run()
        })
}

/// Runs the tour's commands as child processes of this very binary and prints each with its output.
private final class Tour {
    let directory: String
    let console: Console
    let executable: String
    let store: String
    let edition1: String
    let edition2: String
    /// The content the steps run with: edition 1, then edition 2 once the update has come.
    var content: String

    init(directory: String, console: Console) throws {
        self.directory = directory
        self.console = console
        guard let executable = Bundle.main.executablePath else { throw ToolError("cannot find the marginalia binary") }
        self.executable = executable
        store = directory + "/user.db"
        edition1 = directory + "/eminescu-2026.1.db"
        edition2 = directory + "/eminescu-2026.2.db"
        content = edition1
        // The tour writes these files; it replaces none that is already there.
        for name in ["user.db", "eminescu-2026.1.db", "eminescu-2026.2.db", "backup.jsonl.gz", "laptop.db",
                     "laptop.jsonl.gz"] where FileManager.default.fileExists(atPath: directory + "/" + name) {
            throw ToolError("\(directory)/\(name) already exists; give the demo an empty directory")
        }
    }

    func run() throws {
        heading("Marginalia keeps your notes in a store that no content update touches. Working in \(directory).")
        section("1. The content: edition 1 of the bundled sample, built into a read-only database")
        try step(["content", "build", try BundledContent.sourcePath(edition: 1), "--output", edition1])
        try step(["content", "build", try BundledContent.sourcePath(edition: 2), "--output", edition2], quiet: true)

        section("2. A store of your own, and some annotations (offsets are found from the quoted text)")
        console.out("   MARGINALIA_STORE=\(store)  MARGINALIA_CONTENT=\(edition1)")
        try step(["init"])
        let morning = try step(["highlight", "luceafarul.1", "--quote", "povesti", "--color", "yellow",
                                "--tag", "basm"])
        let curtain = try step(["note", "scrisoarea-i.3", "--quote", "perdelele-ntr-o parte",
                                "Luna intră în odaie: de aici pornește poemul."])
        let dream = try step(["highlight", "scrisoarea-i.6", "--quote", "simţim ca-n vis", "--tag", "vis"])
        let question = try step(["highlight", "mortua-est.63", "--quote", "în ce o să stâng",
                                 "--note", "întrebarea poemului"])
        try step(["bookmark", "si-daca-de-cu-ziua.2", "--title", "the linden tree"])
        try step(["position", "luceafarul", "luceafarul.5"])
        try step(["edit", curtain, "--note", "Luna intră în odaie — de aici pornește tot poemul.",
                  "--tag", "lună"])
        try step(["delete", dream])
        try step(["undelete", dream])
        try step(["list"])

        section("3. Search without diacritics: 'tara' finds ‘ţara’ and ‘ţară’; prefixes and phrases too")
        try step(["search", "tara", "--limit", "4"])
        try step(["search", "stiint*"])
        try step(["search", "\"simtim ca-n vis\""])
        try step(["search", "--notes", "porneste"])

        section("4. An update replaces the content with edition 2 (comma-below letters, rewordings, a poem removed)")
        let before = try storeFingerprint()
        content = edition2
        console.out("   MARGINALIA_CONTENT=\(edition2)")
        try step(["list"])
        let after = try storeFingerprint()
        console.out("   the store's full dump before and after the swap: "
            + "\(before == after ? "identical" : "DIFFERENT") (\(after.prefix(16))…)")

        section("5. Every annotation accounted for; the moved ones re-anchored, the orphans kept")
        try step(["anchors"])
        try step(["anchors", "--reanchor"])
        try step(["anchors", "--reanchor"])
        try step(["history", morning])

        section("6. Backup, restore on a second machine, and merging its notes back")
        let backup = directory + "/backup.jsonl.gz"
        let laptop = directory + "/laptop.db"
        try step(["backup", backup])
        try step(["--store", laptop, "restore", backup])
        try step(["--store", laptop, "note", "luceafarul.3", "--quote", "împărătești", "scrisă pe laptop"])
        try step(["--store", laptop, "delete", question])
        try step(["edit", question, "--note", "întrebarea poemului, recitită"])
        let fromLaptop = directory + "/laptop.jsonl.gz"
        try step(["--store", laptop, "export", fromLaptop])
        try step(["import", fromLaptop, "--dry-run"])
        try step(["import", fromLaptop])
        try step(["import", fromLaptop])
        try step(["list", "--document", "luceafarul"])
        console.out("")
        console.out("   The laptop deleted the highlight on mortua-est.63 while this store edited its note: the delete")
        console.out("   holds (an edit never resurrects), and the edit is kept in the tombstone and its history.")
        try step(["show", question])
        try step(["history", question])
        try step(["verify"])
        heading("The tour's files are in \(directory). Your own store was not touched.")
    }

    /// Runs `marginalia ARGS` and prints it with its output; returns its stdout, trimmed.
    @discardableResult
    func step(_ arguments: [String], quiet: Bool = false) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["MARGINALIA_STORE"] = store
        environment["MARGINALIA_CONTENT"] = content
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stdout = String(decoding: out, as: UTF8.self)
        let stderr = String(decoding: err, as: UTF8.self)
        if !quiet {
            console.out("")
            console.out("$ marginalia " + arguments.map(Output.shellQuoted).joined(separator: " "))
            for line in (stdout + stderr).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                console.out("  " + line)
            }
        }
        guard process.terminationStatus == 0 else {
            throw ToolError("the demo step 'marginalia \(arguments.joined(separator: " "))' failed "
                + "(exit \(process.terminationStatus)): \(stderr)")
        }
        return stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A fingerprint of every row of the store (`canonicalDump`), to show the content swap changes nothing.
    private func storeFingerprint() throws -> String {
        let opened = try AnnotationStore.open(path: store, access: .readOnly)
        return try opened.canonicalFingerprint()
    }

    private func section(_ title: String) {
        console.out("")
        console.out("== \(title)")
    }

    private func heading(_ text: String) {
        console.out(text)
    }
}
