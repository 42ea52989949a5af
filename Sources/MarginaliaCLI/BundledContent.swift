import Foundation
import Marginalia

/// The sample content that ships with marginalia: two editions of Eminescu's poems, as content sources in
/// the `samples` directory, built into content databases on first use.
enum BundledContent {
    /// The source file of each bundled edition.
    static let sourceFiles = [1: "eminescu-2026.1.json", 2: "eminescu-2026.2.json"]
    /// The edition name inside each bundled source (a test checks that they agree).
    static let editionNames = [1: "eminescu-2026.1", 2: "eminescu-2026.2"]

    /// The number (1 or 2) of the bundled edition named `name`, or nil when it is not a bundled edition.
    static func number(ofEdition name: String) -> Int? {
        editionNames.first { $0.value == name }?.key
    }

    /// The samples directory: `$MARGINALIA_SAMPLES`, else `share/marginalia/samples` beside an installed
    /// binary, else the `samples` directory of the source tree the binary was built from.
    static func samplesDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let path = environment["MARGINALIA_SAMPLES"], !path.isEmpty { return path }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let binDirectory = executable.deletingLastPathComponent()
            candidates.append(
                binDirectory.deletingLastPathComponent().appendingPathComponent("share/marginalia/samples"))
            // Inside a source tree: .build/<triple>/<configuration>/marginalia.
            var directory = binDirectory
            for _ in 0..<5 {
                directory = directory.deletingLastPathComponent()
                candidates.append(directory.appendingPathComponent("samples"))
            }
        }
        // The source tree this file was compiled from.
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("samples"))
        for candidate in candidates
        where FileManager.default.fileExists(atPath: candidate.appendingPathComponent(sourceFiles[1] ?? "").path) {
            return candidate.path
        }
        throw ToolError("the bundled sample content was not found (set MARGINALIA_SAMPLES to the samples directory, "
            + "or give --content)")
    }

    /// The source file of bundled edition `edition` (1 or 2).
    static func sourcePath(edition: Int) throws -> String {
        guard let file = sourceFiles[edition] else { throw ToolError("there is no bundled edition \(edition)") }
        return try samplesDirectory() + "/" + file
    }

    /// The content database of bundled edition `edition`, built from its source into `cacheDirectory` the first
    /// time (named by a hash of the source, so an updated source is built anew); `tell` is told when it is built,
    /// which takes seconds.
    static func databasePath(edition: Int, cacheDirectory: String, tell: (String) -> Void = { _ in }) throws
        -> String {
        let source = try sourcePath(edition: edition)
        guard let bytes = FileManager.default.contents(atPath: source) else {
            throw ToolError("cannot read the bundled sample \(source)")
        }
        let name = (source as NSString).lastPathComponent.replacingOccurrences(of: ".json", with: "")
        // The content schema in the name too: a cache built by an earlier version (without word forms) is rebuilt.
        // The lemma table's size too: a cache built with an earlier table (fewer forms) is rebuilt.
        let lemmas = try lemmaTable(language: "ro")
        let lemmaBytes = lemmas.flatMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int } ?? 0
        let path = "\(cacheDirectory)/\(name)-\(FNV1a.hex(of: bytes + Array("\(lemmaBytes)".utf8)))"
            + "-c\(ContentBuilder.schemaVersion).db"
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        // Built once, under a lock: a second command started meanwhile waits for the first and then uses its
        // database, rather than finding one half made.
        try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        let lockPath = "\(cacheDirectory)/.\(name).build-lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw ToolError("cannot lock \(lockPath): \(String(cString: strerror(errno)))") }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw ToolError("cannot lock \(lockPath): \(String(cString: strerror(errno)))") }
        }
        if !FileManager.default.fileExists(atPath: path) {
            tell("Building the bundled sample content (edition \(edition)) for its first use, into "
                + "\(cacheDirectory); this takes a few seconds, once.")
            try ContentBuilder.build(try ContentSource(bytes: Array(bytes), path: source), output: path,
                                     lemmas: lemmas)
        }
        return path
    }

    /// The bundled lemma table for content in `language` (Romanian only), or nil when there is none.
    static func lemmaTable(language: String) throws -> String? {
        guard language.lowercased().hasPrefix("ro") else { return nil }
        let path = try samplesDirectory() + "/ro-lemmas.tsv.gz"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}

/// A failure of the tool itself (exit status 1), with a message for the user.
struct ToolError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
