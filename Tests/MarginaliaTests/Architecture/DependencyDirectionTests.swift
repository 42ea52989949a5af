import Foundation
import Testing

/// The library's dependencies point one way (`../shared/docs/design.md`, section 7): every folder has a place in
/// `layers`, and names no type declared in a folder above it. The infrastructure (Support, SQLite, JSON, IO) is at
/// the bottom; the core (Model, ChangeLog, Projection, Transaction, Replication) names neither the engine nor any
/// adapter; the engine, where the connection lives, names no adapter (what it runs of them is registered in the
/// library's composition, `Marginalia.swift`); the adapters (the archive, interop, the sync folder, the report)
/// come last. Gzip is IO's and the line of a change the core's: no adapter holds code of its own for either.
///
/// One vocabulary is shared by every folder: the library's one public error, `MarginaliaError` (with
/// `CategorizedError` and `ErrorFacts`), which names each folder's error so that an app sees them all as one.
///
/// It reads the sources as text: every top-level type a folder declares, then every word of every other
/// folder's code (comments and string literals left out).
@Suite struct DependencyDirectionTests {
    /// The library's folders, lowest first: each may name the types of the folders before it, none after it.
    static let layers = ["Support", "SQLite", "JSON", "IO", "Model", "Privacy", "Roster", "ChangeLog", "Projection",
                         "Transaction", "Replication", "Search", "Content", "Anchoring", "Engine",
                         "Archive", "Interop", "Sync", "Report"]
    /// The core, which must name neither the engine nor an adapter.
    static let core = ["Model", "ChangeLog", "Projection", "Transaction", "Replication"]
    static let adapters = ["Archive", "Sync", "Interop", "Report"]
    /// The public error, and what every error of the library is declared with: any folder may name them.
    static let sharedVocabulary: Set<String> = ["MarginaliaError", "CategorizedError", "ErrorFacts"]
    /// The file of the public error, which names the error of each folder it carries.
    static let publicErrorFile = "Model/MarginaliaError.swift"

    @Test func everyFolderNamesOnlyTheFoldersBelowIt() throws {
        let sources = try Self.sources()
        let folders = Set(sources.map(\.folder))
        #expect(folders == Set(Self.layers), "every folder has one place in the layers: \(folders.sorted())")
        let violations = Self.upwardDependencies(of: sources)
        #expect(violations.isEmpty, "folders that name a folder above them:\n\(violations.joined(separator: "\n"))")
    }

    /// Each loop the layers forbid is found when planted: the core taking the connection, the engine calling an
    /// adapter, the change log reading the projection.
    @Test func aPlantedLoopIsFound() throws {
        let sources = try Self.sources()
        let planted = [
            Source(folder: "Replication", name: "PlantedMerger.swift", text: """
                // StoreConnection in a comment is no dependency.
                struct PlantedMerger { let store: StoreConnection }
                """),
            Source(folder: "Engine", name: "PlantedOpen.swift", text: """
                func plantedOpen(_ store: StoreConnection) { _ = ArchiveImporter(store: store) }
                """),
            Source(folder: "ChangeLog", name: "PlantedLog.swift", text: "func plantedLog(_ p: Projection) {}\n"),
        ]
        let violations = Self.upwardDependencies(of: sources + planted)
        #expect(violations.filter { $0.contains("Planted") } == [
            "ChangeLog/PlantedLog.swift:1 names Projection (Projection)",
            "Engine/PlantedOpen.swift:1 names ArchiveImporter (Archive)",
            "Replication/PlantedMerger.swift:2 names StoreConnection (Engine)",
        ])
    }

    @Test func theCoreNamesNoAdapterType() throws {
        let sources = try Self.sources()
        let adapterTypes = Self.declaredTypes(
            in: sources.filter { Self.adapters.contains($0.folder) || $0.folder == "Engine" })
        #expect(adapterTypes["ArchiveError"] == "Archive" && adapterTypes["SyncFolder"] == "Sync"
            && adapterTypes["KindleClippings"] == "Interop" && adapterTypes["StoreConnection"] == "Engine",
                "the scan must find the adapters' and the engine's types")
        let violations = Self.violations(of: sources.filter { Self.core.contains($0.folder) }, naming: adapterTypes)
        #expect(violations.isEmpty, "the core names engine or adapter types:\n\(violations.joined(separator: "\n"))")
    }

    /// No file outside `Engine/` writes the connection's state: its device id and clock change only through a
    /// transaction (`StoreTransaction`), which the connection settles after the commit, and only the engine has a
    /// connection catch up with what another committed (`refreshDeviceID`).
    @Test func onlyTheEngineWritesTheConnectionsState() throws {
        let state = ["deviceID", "clock", "progressHandler", "allowsMassDeletion", "content", "schemaUpgrade",
                     "finishedImports", "clockWarnings", "transaction"]
        let names = state.joined(separator: "|")
        let assignment = "\\b(store|connection|writer|reader)\\.(\(names))\\s*(=|\\+=)[^=]"
        // Catching up with another connection's device id is the engine's, as each read or write begins.
        let refresh = "\\.refreshDeviceID\\("
        let pattern = try Regex("\(assignment)|\(refresh)").wordBoundaryKind(.simple)
        func writes(_ sources: [Source]) -> [String] { Self.lines(of: sources, matching: pattern) }
        let found = writes(try Self.sources().filter { $0.folder != "Engine" })
        #expect(found.isEmpty,
                "files outside Engine/ that write the connection's state:\n\(found.joined(separator: "\n"))")
        let planted = Source(folder: "Sync", name: "Planted.swift",
                             text: "store.deviceID = renewed\nlet a = store.clock == b\ntry store.refreshDeviceID()\n")
        #expect(writes([planted]) == ["Sync/Planted.swift:1", "Sync/Planted.swift:3"])
    }

    /// No adapter holds the connection: it is handed a `StoreReader` for a read and a `StoreWriter` for work that
    /// writes (`StoreEngine.reading`, `StoreEngine.writing`), as GRDB hands a `DatabaseReader` or a
    /// `DatabaseWriter`; it names no `StoreConnection`, reaches no `underlyingConnection`, and takes no connection
    /// from the engine (`engine.read`, `engine.write`).
    @Test func noAdapterHoldsTheConnection() throws {
        // Simple word boundaries: by Unicode's rules, `store.engine.read` would be one word.
        let pattern = try Regex("\\bStoreConnection\\b|\\.underlyingConnection\\b|\\bengine\\.(read|write)\\b")
            .wordBoundaryKind(.simple)
        func holds(_ sources: [Source]) -> [String] {
            Self.lines(of: sources.filter { Self.adapters.contains($0.folder) }, matching: pattern)
        }
        let found = holds(try Self.sources())
        #expect(found.isEmpty, "adapters that hold the connection:\n\(found.joined(separator: "\n"))")
        let planted = Source(folder: "Archive", name: "Planted.swift", text: """
            // A StoreConnection in a comment holds nothing.
            struct Planted { let store: StoreConnection }
            let a = writer.underlyingConnection.db
            try store.engine.write { $0.db }
            try engine.writing { $0.db }
            """)
        #expect(holds([planted]) == ["Archive/Planted.swift:2", "Archive/Planted.swift:3", "Archive/Planted.swift:4"])
    }

    /// "FOLDER/FILE:LINE names TYPE (ITS FOLDER)" for each use of a type declared in a folder above the user's.
    static func upwardDependencies(of sources: [Source]) -> [String] {
        let declared = declaredTypes(in: sources).filter { !sharedVocabulary.contains($0.key) }
        let rank = Dictionary(uniqueKeysWithValues: layers.enumerated().map { ($1, $0) })
        return sources.filter { "\($0.folder)/\($0.name)" != publicErrorFile }.flatMap { source in
            words(inCodeOf: source.text).compactMap { use in
                guard let owner = declared[use.word], owner != source.folder,
                      (rank[owner] ?? .max) > (rank[source.folder] ?? .max) else { return nil }
                return "\(source.folder)/\(source.name):\(use.line) names \(use.word) (\(owner))"
            }
        }.sorted()
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

    /// What an adapter keeps in the store goes through the core's operations on it (`AdapterState`): no adapter's
    /// SQL names `meta`, the store's own identity, which the core alone reads and writes.
    @Test func noAdapterSQLNamesMeta() throws {
        let sources = try Self.sources()
        let changeLog = try Self.metaSQL(in: sources.filter { $0.folder == "ChangeLog" })
        #expect(!changeLog.isEmpty, "the scan must find the SQL on meta in ChangeLog/")
        let found = try Self.metaSQL(in: sources.filter { Self.adapters.contains($0.folder) })
        #expect(found.isEmpty, "adapter SQL that names meta:\n\(found.joined(separator: "\n"))")
        let planted = Source(folder: "Sync", name: "Planted.swift", text: #"""
            // SELECT value FROM meta in a comment is no SQL, nor is the word meta or an HTML <meta> in a string.
            let found = try db.text(sql: "SELECT value FROM meta WHERE key = 'store_file'")
            let tag = "<meta charset=\"utf-8\">, meta: the device id"
            try db.execute(sql: """
                INSERT OR REPLACE INTO main.meta (key, value)
                """)
            """#)
        #expect(try Self.metaSQL(in: [planted]) == ["Sync/Planted.swift:2", "Sync/Planted.swift:5"])
    }

    /// The core's tables, which an adapter writes only through the core's operations.
    static let coreTables = ["changes", "annotations", "positions", "devices", "quarantine", "receipts", "meta",
                             "clock_notes", "adapter_state", "roster_entries", "device_keys", "epoch_keys"]

    /// Adapters write the core's tables only through the core's operations (the merger, the log, `Receipts`,
    /// `AdapterState`, the roster's ledger): no adapter SQL inserts into, updates or deletes from one of them.
    @Test func noAdapterSQLWritesACoreTable() throws {
        let tables = Self.coreTables.joined(separator: "|")
        let pattern = try Regex(#"(?i)\b(insert(\s+or\s+\w+)?\s+into|replace\s+into|update|delete\s+from)\s+(\w+\.)?("#
            + tables + #")\b"#)
        func writes(_ sources: [Source]) -> [String] { Self.lines(of: sources, matching: pattern, inLiterals: true) }
        let sources = try Self.sources()
        #expect(!writes(sources.filter { $0.folder == "ChangeLog" }).isEmpty, "the scan must find the log's inserts")
        let found = writes(sources.filter { Self.adapters.contains($0.folder) })
        #expect(found.isEmpty, "adapter SQL that writes a core table:\n\(found.joined(separator: "\n"))")
        let planted = Source(folder: "Archive", name: "Planted.swift", text: #"""
            // DELETE FROM changes in a comment is no SQL; reading them is no write:
            let n = try db.int(sql: "SELECT count(*) FROM changes")
            try db.execute(sql: "INSERT OR IGNORE INTO main.receipts (kind) VALUES ('import')")
            try db.execute(sql: """
                UPDATE annotations SET note = ''
                """)
            try db.execute(sql: "INSERT INTO sync_files (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET n = 1")
            """#)
        #expect(writes([planted]) == ["Archive/Planted.swift:3", "Archive/Planted.swift:5"])
    }

    /// "FOLDER/FILE:LINE" for each line of `sources` whose code or string literals read or write the table `meta`
    /// (of any schema: `main.meta`), comments left out.
    static func metaSQL(in sources: [Source]) throws -> [String] {
        let pattern = try Regex(#"(?i)\b(from|into|update|join|table)\s+(\w+\.)?meta\b"#)
        return lines(of: sources, matching: pattern, inLiterals: true)
    }

    /// "FOLDER/FILE:LINE" for each line of `sources` whose code matches `pattern` (or, with `inLiterals`, one of
    /// its string literals does: SQL), comments left out.
    static func lines(of sources: [Source], matching pattern: Regex<AnyRegexOutput>, inLiterals: Bool = false)
        -> [String] {
        sources.flatMap { source in
            parts(ofCode: source.text).compactMap { line in
                ([line.code] + (inLiterals ? line.literals : [])).contains { $0.contains(pattern) }
                    ? "\(source.folder)/\(source.name):\(line.number)" : nil
            }
        }
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
            where !line.hasPrefix(" ") && !line.hasPrefix("\t") && !line.hasPrefix("//") {
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
    static func parts(ofCode text: String) -> [(number: Int, words: [String], literals: [String], code: String)] {
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
            return (index + 1, words, literals, code)
        }
    }
}
