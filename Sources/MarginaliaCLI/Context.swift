import Foundation
import Marginalia

/// How a command uses content.
enum ContentUse {
    /// Not at all.
    case none
    /// When it can be attached; otherwise the command goes on with a warning (stored quotes stand in).
    case optional
    /// It must be attached; otherwise the command fails.
    case required
}

/// What a running command can reach: its arguments, the environment, the store and the content.
final class Context {
    let arguments: ParsedArguments
    let environment: [String: String]
    let console = Console()
    /// The store this run created, if it did: a failed command removes it again, so that it leaves nothing.
    private(set) var createdStore: String?

    init(arguments: ParsedArguments, environment: [String: String]) {
        self.arguments = arguments
        self.environment = environment
    }

    /// How a command's store connections behave: a lock another process holds is waited for
    /// `busySeconds`, then the command says the store is busy.
    static let configuration: AnnotationStore.Configuration = {
        var configuration = AnnotationStore.Configuration()
        configuration.busyTimeout = .seconds(busySeconds)
        return configuration
    }()

    /// How long a command waits for a store another process holds: `$MARGINALIA_BUSY_TIMEOUT` seconds (a script
    /// that would rather fail fast), else 30, the time a long import or re-anchoring may hold it.
    static let busySeconds: Int = {
        guard let text = ProcessInfo.processInfo.environment["MARGINALIA_BUSY_TIMEOUT"], let seconds = Int(text),
              seconds >= 0, seconds <= 3600 else { return 30 }
        return seconds
    }()

    /// The `--allow-mass-delete` option of the commands that merge.
    static let allowMassDelete = CommandSpec.Option(
        name: "allow-mass-delete",
        help: "Let through a merge that deletes more than half of the live annotations (and more than 50); "
            + "without it such a merge writes nothing and says what it would delete, and by which devices.")

    /// Whether `--json` was given.
    var json: Bool { arguments.flag("json") }

    /// The store path: `--store`, else `$MARGINALIA_STORE`, else `$XDG_DATA_HOME/marginalia/user.db`, else
    /// `~/.local/share/marginalia/user.db`.
    var storePath: String {
        arguments.value("store") ?? defaultStorePath
    }

    /// The store used without `--store`: `$MARGINALIA_STORE`, else the one in the data directory.
    var defaultStorePath: String {
        if let path = environment["MARGINALIA_STORE"], !path.isEmpty { return path }
        return dataDirectory() + "/marginalia/user.db"
    }

    /// `path` made absolute and without `.` and `..`, to compare two ways of naming a file.
    static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// A command to suggest, as the user would run it here: `marginalia`, the `--store` and `--content` given on
    /// this command line (so that the hint acts on the same store and content), then `words`.
    func suggested(_ words: String) -> String {
        var parts = ["marginalia"]
        for option in ["store", "content"] {
            if let value = arguments.value(option) { parts.append("--\(option) \(Output.shellQuoted(value))") }
        }
        return (parts + [words]).joined(separator: " ")
    }

    /// Whether the store file exists.
    var storeExists: Bool { FileManager.default.fileExists(atPath: storePath) }

    /// The content path: `--content`, else `$MARGINALIA_CONTENT`, else the content the store was last reconciled
    /// with (its recorded path, or the bundled edition of that name), else, for a store whose annotations were all
    /// made on the bundled sample (or that has none), the bundled sample (built into the cache directory on first
    /// use). `bundled` tells whether the path is the bundled sample's.
    ///
    /// A recorded path that is gone is an error, never a fall back to another edition.
    func contentPath(for store: AnnotationStore) throws -> (path: String, bundled: Bool) {
        if let path = arguments.value("content") { return (path, false) }
        if let path = environment["MARGINALIA_CONTENT"], !path.isEmpty { return (path, false) }
        let cache = cacheDirectory() + "/marginalia"
        if let recorded = try store.reconciledContent() {
            if let path = recorded.path {
                guard FileManager.default.fileExists(atPath: path) else {
                    throw ToolError("the content this store was last reconciled with (edition \(recorded.edition), "
                        + "\(path)) is gone; give that edition or a newer one with --content")
                }
                return (path, false)
            }
            guard let edition = BundledContent.number(ofEdition: recorded.edition) else {
                throw ToolError("this store was last reconciled with edition \(recorded.edition), whose path was not "
                    + "recorded; give it with --content")
            }
            return (try BundledContent.databasePath(edition: edition, cacheDirectory: cache, tell: console.err), true)
        }
        let anchored = try store.anchoredEditions()
        if let foreign = anchored.first(where: { BundledContent.number(ofEdition: $0) == nil }) {
            throw ToolError("the store's annotations are anchored on edition \(foreign), not on the bundled sample; "
                + "give that content with --content (or $MARGINALIA_CONTENT)")
        }
        let edition = anchored.compactMap(BundledContent.number(ofEdition:)).max() ?? 1
        return (try BundledContent.databasePath(edition: edition, cacheDirectory: cache, tell: console.err), true)
    }

    /// Whether the attached content is the bundled sample (found again by its edition, so its path is not
    /// recorded).
    private(set) var contentIsBundled = false

    /// Opens the store and attaches content as `content` asks; says so when the content is a newer edition than
    /// the annotations were checked against (unless `remind` is false).
    ///
    /// A store is created only at the default path (`$MARGINALIA_STORE`, else the data directory) or by a command
    /// that exists to create one (`creates`, `init`): a write to a `--store` path that does not exist (and is not
    /// the default store's) is refused, so that a mistyped path never becomes a new, empty store.
    func openStore(_ access: AnnotationStore.Access, content use: ContentUse, remind: Bool = true,
                   creates: Bool = false) throws -> AnnotationStore
    {
        removeStaleFiles()
        if access == .create && !storeExists && !creates, let path = arguments.value("store"),
           Self.standardized(path) != Self.standardized(defaultStorePath) {
            throw ToolError("no store at \(path): --store names a file that does not exist (nothing was written). "
                + "To create a store there, run: marginalia --store \(Output.shellQuoted(path)) init")
        }
        if access == .create && !storeExists {
            createdStore = storePath
            Interruption.removeOnInterrupt(storePath)
        }
        var configuration = Self.configuration
        configuration.allowsMassDeletion = arguments.flag("allow-mass-delete")
        let store = try AnnotationStore.open(path: storePath, access: access, configuration: configuration)
        if access != .readOnly { Interruption.watch(store: storePath) }
        reportUpgrade(of: store)
        openedStores.append(store)
        try attach(use, to: store, remind: remind)
        return store
    }

    /// Says on stderr, once, how opening the store changed it: an interrupted import finished or abandoned, an older
    /// store made readable (the writes a read may make).
    private func reportUpgrade(of store: AnnotationStore) {
        for archive in store.finishedImports {
            console.err("Finished the import of \(archive) that was stopped midway")
        }
        for abandoned in store.abandonedImports {
            let total = abandoned.total.map { "\($0) " } ?? ""
            console.err("Warning: abandoned the import of \(abandoned.archive) that was stopped midway: the copy kept "
                + "beside the store, \(abandoned.copy), \(abandoned.problemDescription), so nothing more was merged "
                + "from it. \(abandoned.changesRead) of its \(total)changes are in the store (each was checked when "
                + "it was merged); importing \(abandoned.archive) again finishes it (what is there already is not "
                + "merged twice)")
        }
        guard let upgrade = store.schemaUpgrade else { return }
        switch upgrade.kind {
        case .inPlace:
            console.err("Upgraded the store \(storePath) from schema \(upgrade.from) to \(upgrade.to)")
        case .inMemoryCopy:
            console.err("Note: the store \(storePath) is of schema \(upgrade.from) and cannot be upgraded here (it "
                + "cannot be written); reading a copy upgraded in memory")
        }
    }

    /// Removes the temporary files that dead processes left beside the store (never a live one's).
    func removeStaleFiles() {
        TemporaryFile.removeStale(beside: storePath)
    }

    /// The stores this run opened, whose clock warnings are printed when the command succeeds.
    private var openedStores: [AnnotationStore] = []

    /// Prints on stderr each write of this run made with the wall clock far from the store's newest change.
    func reportClockWarnings() {
        for store in openedStores {
            for warning in store.clockWarnings { console.err("Warning: \(warning)") }
        }
    }

    /// After a failed command: removes the store this run created (it holds nothing, since every write is one
    /// transaction that was rolled back).
    func removeCreatedStore() {
        guard let path = createdStore else { return }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        createdStore = nil
        Interruption.removeOnInterrupt(nil)
    }

    /// Opens the store when it exists, else a private empty one (for commands that read content and merely
    /// consult the store, such as search).
    func openStoreIfPresent(content use: ContentUse) throws -> AnnotationStore {
        removeStaleFiles()
        let store = storeExists
            ? try AnnotationStore.open(path: storePath, access: .readOnly, configuration: Self.configuration)
            : try AnnotationStore.open(path: ":memory:", access: .create)
        reportUpgrade(of: store)
        try attach(use, to: store)
        return store
    }

    /// Runs long work on `store` with a progress line on stderr (when it is a terminal).
    func withProgress<T>(on store: AnnotationStore, _ body: () throws -> T) rethrows -> T {
        let line = ProgressLine(console: console)
        store.progressHandler = line.handler
        defer {
            line.finish()
            store.progressHandler = nil
        }
        return try body()
    }

    private func attach(_ use: ContentUse, to store: AnnotationStore, remind: Bool = true) throws {
        guard use != .none else { return }
        do {
            let content = try contentPath(for: store)
            try store.attachContent(path: content.path)
            contentIsBundled = content.bundled
        } catch {
            if use == .required { throw error }
            console.err("warning: \(error); showing what the store holds")
            return
        }
        if remind, let previous = try store.pendingReconciliation(), let current = store.content?.edition {
            console.err("note: the content is now edition \(current); annotations were anchored on \(previous). "
                + "To check them, run: \(suggested("anchors"))")
        }
    }

    private func dataDirectory() -> String {
        if let path = environment["XDG_DATA_HOME"], path.hasPrefix("/") { return path }
        return homeDirectory() + "/.local/share"
    }

    private func cacheDirectory() -> String {
        if let path = environment["XDG_CACHE_HOME"], path.hasPrefix("/") { return path }
        return homeDirectory() + "/.cache"
    }

    /// Where the user's private settings go: `$XDG_CONFIG_HOME`, else `~/.config`.
    func configDirectory() -> String {
        if let path = environment["XDG_CONFIG_HOME"], path.hasPrefix("/") { return path }
        return homeDirectory() + "/.config"
    }

    private func homeDirectory() -> String {
        environment["HOME"] ?? NSHomeDirectory()
    }
}
