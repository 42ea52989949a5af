import Foundation
import Testing

/// The command-line tool is a client of the library: it uses the public API that an app gets, and beyond it only
/// the `package` types named here, each for a reason the README's "The library" section gives. A command that
/// reaches for another `package` type fails this test until the type is made public or added here (and to the
/// README) on purpose; a type the tool stopped using fails it too, so that the list stays what the tool uses.
@Suite struct ToolSurfaceTests {
    /// The `package` types the tool names, by what it uses them for.
    static let surface: [String: String] = [
        // Its JSON output.
        "JSONObject": "json", "JSONValue": "json", "JSONWriter": "json",
        // The files it writes and reads itself: output, private key files, age output, interop input, scratch.
        "FileSink": "files", "FileSource": "files", "ByteSource": "files", "ByteArraySource": "files",
        "TemporaryFile": "files", "PrivateFiles": "files", "AgeEncryptingSink": "files", "AgeFormat": "files",
        // `content build`, and the bundled sample built on first use.
        "ContentBuilder": "content", "ContentSource": "content",
        // The other tools' formats, read and written by name.
        "InteropReader": "interop", "InteropWriter": "interop",
        // What its output shows: a change's fields, the limits of a note, a log filter, a receipt, a parsed query.
        "ChangeFields": "output", "FieldLimits": "output", "IDKind": "output", "LogFilter": "output",
        "Receipt": "output", "SearchQuery": "output",
        // The errors it words advice for (the exit status is `MarginaliaError.category`'s, in `ErrorTable`), and
        // the protocol its own input errors take to be classified alike.
        "CategorizedError": "errors", "ErrorFacts": "errors", "ArchiveError": "errors",
        "AuditReportTooLarge": "errors", "OutputRefusal": "errors", "SQLiteError": "errors", "SearchError": "errors",
        "StoreError": "errors", "SyncFolderError": "errors",
    ]

    @Test func theToolNamesNoPackageTypeOutsideItsSurface() throws {
        let used = try Self.packageTypesNamed(by: Self.toolSources(), declared: Self.packageTypes())
        let outside = used.filter { Self.surface[$0.key] == nil }.map { "\($0.key) in \($0.value.sorted())" }
        #expect(outside.isEmpty, "package types the tool names beyond its surface: \(outside.sorted())")
        let unused = Self.surface.keys.filter { used[$0] == nil }
        #expect(unused.isEmpty, "listed in the surface but no longer named by the tool: \(unused.sorted())")
    }

    @Test func everyListedTypeIsOfTheLibrarysPackageSurface() throws {
        let declared = try Self.packageTypes()
        let missing = Self.surface.keys.filter { !declared.contains($0) }
        #expect(missing.isEmpty, "not package types of the library: \(missing.sorted())")
    }

    @Test func aCommandThatReachesForAnotherPackageTypeIsFound() throws {
        let planted = ("Planted.swift", "let database = try SQLiteDatabase(path: path) // reads the store itself\n")
        let used = try Self.packageTypesNamed(by: [planted], declared: Self.packageTypes())
        #expect(used.keys.contains("SQLiteDatabase") && Self.surface["SQLiteDatabase"] == nil)
    }

    // MARK: - Reading the sources

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The names of the library's top-level types declared `package`.
    static func packageTypes() throws -> Set<String> {
        let keywords: Set<String> = ["struct", "enum", "class", "protocol", "typealias", "actor"]
        var names: Set<String> = []
        for (_, text) in try swiftFiles(under: "Sources/Marginalia") {
            for line in text.split(separator: "\n") where line.hasPrefix("package ") {
                let words = line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
                if let index = words.firstIndex(where: { keywords.contains(String($0)) }), index + 1 < words.count {
                    names.insert(String(words[index + 1]))
                }
            }
        }
        #expect(names.count > 50, "the library's sources are under \(root.path)/Sources/Marginalia")
        return names
    }

    static func toolSources() throws -> [(String, String)] {
        let sources = try swiftFiles(under: "Sources/MarginaliaCLI")
        #expect(sources.count > 20, "the tool's sources are under \(root.path)/Sources/MarginaliaCLI")
        return sources
    }

    /// Each type of `declared` that `sources` name in their code, with the files that name it.
    static func packageTypesNamed(by sources: [(String, String)], declared: Set<String>) -> [String: Set<String>] {
        var used: [String: Set<String>] = [:]
        for (name, text) in sources {
            for use in DependencyDirectionTests.words(inCodeOf: text) where declared.contains(use.word) {
                used[use.word, default: []].insert(name)
            }
        }
        return used
    }

    /// The Swift files under `folder` of the package, as (file name, text).
    static func swiftFiles(under folder: String) throws -> [(String, String)] {
        let directory = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var files: [(String, String)] = []
        while let path = walker.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
            files.append(((path as NSString).lastPathComponent, text))
        }
        return files.sorted { $0.0 < $1.0 }
    }
}
