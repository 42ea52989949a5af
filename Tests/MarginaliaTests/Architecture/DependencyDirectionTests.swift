import Foundation
import Testing

/// The library's dependencies point inward (`../shared/docs/design.md`, section 7): the core — the model, the change
/// log, the projection, the merger — and the infrastructure under it (SQLite, JSON, IO, Support) name no type of an
/// adapter (the archive, the sync folder, the interop formats); and the archive names neither of the other two. Gzip
/// is IO's and the line of a change the core's: no adapter holds code of its own for either.
///
/// It reads the sources as text: every top-level type an adapter's folder declares, then every word of every other
/// folder's code (comments and string literals left out).
@Suite struct DependencyDirectionTests {
    /// Folders whose files must not name a type declared in any of `adapters`.
    static let core = ["Model", "ChangeLog", "Projection", "Replication", "SQLite", "JSON", "IO", "Support"]
    static let adapters = ["Archive", "Sync", "Interop"]

    @Test func theCoreNamesNoAdapterType() throws {
        let sources = try Self.sources()
        let adapterTypes = Self.declaredTypes(in: sources.filter { Self.adapters.contains($0.folder) })
        #expect(adapterTypes["ArchiveError"] == "Archive" && adapterTypes["SyncFolder"] == "Sync"
            && adapterTypes["KindleClippings"] == "Interop", "the scan must find the adapters' types")
        let violations = Self.violations(of: sources.filter { Self.core.contains($0.folder) }, naming: adapterTypes)
        #expect(violations.isEmpty, "the core names adapter types:\n\(violations.joined(separator: "\n"))")
    }

    @Test func theArchiveNamesNoOtherAdapterType() throws {
        let sources = try Self.sources()
        let others = Self.declaredTypes(in: sources.filter { $0.folder == "Sync" || $0.folder == "Interop" })
        let violations = Self.violations(of: sources.filter { $0.folder == "Archive" }, naming: others)
        #expect(violations.isEmpty, "the archive names sync or interop types:\n\(violations.joined(separator: "\n"))")
    }

    /// `ArchiveError` is the archive's; gzip's `GzipError` is IO's, for any reader of a gzip stream.
    @Test func theArchiveErrorsStayInTheArchive() throws {
        let uses = try Self.sources().filter { $0.folder != "Archive" }.flatMap { source in
            Self.words(inCodeOf: source.text).filter { $0.word == "ArchiveError" }
                .map { "\(source.folder)/\(source.name):\($0.line) names \($0.word)" }
        }
        #expect(uses.isEmpty, "archive errors outside Archive/:\n\(uses.joined(separator: "\n"))")
    }

    /// Gzip and line framing are IO's (`GzipReader`, `GzipWriter`, `LineReader`, `LineWriter`), a change's line is
    /// the core's (`ChangeCodec`): no adapter calls zlib, or writes or reads the keys of a change's line itself.
    @Test func theAdaptersHoldNoGzipOrChangeCodec() throws {
        let sources = try Self.sources()
        let io = Self.codecViolations(of: sources.filter { $0.folder == "IO" })
        let changeLog = Self.codecViolations(of: sources.filter { $0.folder == "ChangeLog" })
        #expect(io.contains { $0.hasSuffix("names z_stream") }, "the scan must find gzip in IO/")
        #expect(changeLog.contains { $0.hasSuffix(#"names "madeAt""#) }, "the scan must find the codec in ChangeLog/")
        let violations = Self.codecViolations(of: sources.filter { Self.adapters.contains($0.folder) })
        #expect(violations.isEmpty, "gzip or change-line code in an adapter:\n\(violations.joined(separator: "\n"))")
        let planted = Source(folder: "Sync", name: "Planted.swift", text: """
            // deflate and "changeId" in a comment are no code.
            let key = "changeId"
            var stream = z_stream()
            """)
        #expect(Self.codecViolations(of: [planted])
            == ["Sync/Planted.swift:2 names \"changeId\"", "Sync/Planted.swift:3 names z_stream"])
    }

    /// The parts are types that take the connection, not extensions of it: only `Engine/`, where the connection
    /// lives, extends `StoreConnection` (its batch, its recording path, its reads).
    @Test func onlyTheEngineExtendsTheConnection() throws {
        let extending = try Self.sources().filter { $0.folder != "Engine" }.flatMap { source in
            Self.extensions(of: "StoreConnection", in: source)
        }
        #expect(extending.isEmpty, "parts that extend StoreConnection:\n\(extending.joined(separator: "\n"))")
        let planted = Source(folder: "Sync", name: "Planted.swift", text: "/// extension StoreConnection {\n"
            + "extension StoreConnection {\n}\n")
        #expect(Self.extensions(of: "StoreConnection", in: planted) == ["Sync/Planted.swift:2"])
    }

    @Test func theScanFindsAViolationWhenThereIsOne() {
        let planted = Source(folder: "Replication", name: "Planted.swift", text: """
            // An ArchiveError in a comment is no dependency, nor is "ArchiveError" in a string.
            func f() throws { throw ArchiveError(file: "", kind: .io, reason: "") }
            """)
        #expect(Self.violations(of: [planted], naming: ["ArchiveError": "Archive"])
            == ["Replication/Planted.swift:2 names ArchiveError (Archive)"])
    }

    // MARK: - Reading the sources

    struct Source {
        var folder: String
        var name: String
        var text: String
    }

    static func sources() throws -> [Source] {
        let library = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Marginalia")
        let manager = FileManager.default
        var found: [Source] = []
        for folder in try manager.contentsOfDirectory(atPath: library.path).sorted() {
            let directory = library.appendingPathComponent(folder)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                continue
            }
            let names = try manager.contentsOfDirectory(atPath: directory.path).sorted()
            for name in names where name.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                found.append(Source(folder: folder, name: name, text: text))
            }
        }
        #expect(found.count > 100, "the library's sources are at \(library.path)")
        return found
    }

    /// "FOLDER/FILE:LINE" for each top-level `extension TYPE` of `source`.
    static func extensions(of type: String, in source: Source) -> [String] {
        source.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let words = line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
            return line.hasPrefix("extension ") && words.count >= 2 && words[1] == type
                ? "\(source.folder)/\(source.name):\(index + 1)" : nil
        }
    }

    /// Each type declared at the top level of `sources` (nested types share names such as `Kind`), by its folder.
    static func declaredTypes(in sources: [Source]) -> [String: String] {
        let keywords: Set<String> = ["struct", "enum", "class", "protocol", "typealias", "actor"]
        var types: [String: String] = [:]
        for source in sources {
            for line in source.text.split(separator: "\n", omittingEmptySubsequences: false)
            where !line.hasPrefix(" ") && !line.hasPrefix("\t") {
                let words = line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
                if let index = words.firstIndex(where: { keywords.contains(String($0)) }), index + 1 < words.count {
                    types[String(words[index + 1])] = source.folder
                }
            }
        }
        return types
    }

    /// "FOLDER/FILE:LINE names TYPE (ITS FOLDER)" for each use in `sources` of a type of `types` from another folder.
    static func violations(of sources: [Source], naming types: [String: String]) -> [String] {
        sources.flatMap { source in
            words(inCodeOf: source.text).compactMap { use in
                guard let owner = types[use.word], owner != source.folder else { return nil }
                return "\(source.folder)/\(source.name):\(use.line) names \(use.word) (\(owner))"
            }
        }
    }

    /// The zlib names that only gzip code calls, and the keys only a change's line has.
    static let zlibNames: Set<String> = ["CZlib", "z_stream", "deflate", "inflate", "deflateInit2_", "inflateInit2_",
                                         "deflateEnd", "inflateEnd", "crc32"]
    static let changeLineKeys: Set<String> = ["changeId", "entityId", "madeAt"]

    /// "FOLDER/FILE:LINE names NAME" for each zlib name in the code of `sources`, and each string literal that is
    /// a key of a change's line.
    static func codecViolations(of sources: [Source]) -> [String] {
        sources.flatMap { source in
            let lines = parts(ofCode: source.text)
            return lines.flatMap { line in
                let place = "\(source.folder)/\(source.name):\(line.number)"
                return line.words.filter(zlibNames.contains).map { "\(place) names \($0)" }
                    + line.literals.filter(changeLineKeys.contains).map { "\(place) names \"\($0)\"" }
            }
        }
    }

    /// The identifiers of `text` with their 1-based lines, outside comments and string literals.
    static func words(inCodeOf text: String) -> [(word: String, line: Int)] {
        parts(ofCode: text).flatMap { line in line.words.map { ($0, line.number) } }
    }

    /// Each line of `text` as its identifiers outside string literals and the string literals themselves, comments
    /// left out.
    static func parts(ofCode text: String) -> [(number: Int, words: [String], literals: [String])] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            var code = ""
            var literals: [String] = []
            var inString = false
            var previous: Character = " "
            for character in line {
                if !inString && character == "/" && previous == "/" { code.removeLast(); break }
                if character == "\"" && previous != "\\" {
                    inString.toggle()
                    if inString { literals.append("") }
                } else if inString {
                    literals[literals.count - 1].append(character)
                } else {
                    code.append(character)
                }
                previous = character
            }
            let words = code.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }).map(String.init)
            return (index + 1, words, literals)
        }
    }
}
