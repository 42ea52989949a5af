// The engine's contract, as an app developer would write it:
//   swift run EmbeddingCheck CONTENT.db MARGINALIA-BINARY
// Exits 0 when every promise held, 1 (saying which) when one did not.
import Foundation
import Marginalia

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FAILED: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    fail("""
        usage: swift run EmbeddingCheck CONTENT.db MARGINALIA-BINARY
          CONTENT.db         a content database ('marginalia content build' or 'marginalia demo' makes one)
          MARGINALIA-BINARY  the built tool ('swift build --product marginalia'; 'swift build --show-bin-path')
        See Examples/EmbeddingCheck/README.md.
        """)
}
let content = arguments[1]
let binary = arguments[2]
let dir = FileManager.default.temporaryDirectory.appendingPathComponent("embedding-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }

let store = try AnnotationStore.open(path: dir + "/user.db", access: .create)   // Sendable
try store.attachContent(path: content)
let passage = try store.documents().first.flatMap { try store.passages(document: $0.id).first?.id }
guard let passage else { fail("the content has no passage") }
let events = store.events()                         // AsyncStream<StoreEvent>

// Four tasks write 100 annotations each while four others read.
let made = try await withThrowingTaskGroup(of: [String].self) { group in
    for _ in 0..<4 {
        group.addTask {
            try (0..<100).map { _ in try store.createAnnotation(.highlight, at: AnchorRequest(passage: passage)).id }
        }
        group.addTask {
            for _ in 0..<25 { _ = try store.annotations(matching: AnnotationFilter()) }
            return []
        }
    }
    var all: [String] = []
    for try await ids in group { all += ids }
    return all
}
guard made.count == 400, try store.annotations().count == 400 else { fail("not all 400 writes landed") }

// The CLI adds a bookmark to the same file from another process.
let cli = Process()
cli.executableURL = URL(fileURLWithPath: binary)
cli.arguments = ["--store", dir + "/user.db", "--content", content, "bookmark", passage]
let output = Pipe()
cli.standardOutput = output
try cli.run()
cli.waitUntilExit()
guard cli.terminationStatus == 0 else { fail("the CLI's bookmark failed (exit \(cli.terminationStatus))") }
let bookmark = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    .trimmingCharacters(in: .whitespacesAndNewlines)

// Every one of the 401 ids arrives in an event.
let expected = Set(made + [bookmark])
let watcher = Task {
    var seen: Set<String> = []
    for await event in events {
        seen.formUnion(event.annotationIDs)
        if seen.isSuperset(of: expected) { return seen }
    }
    return seen
}
let timeout = Task {
    try await Task.sleep(nanoseconds: 10_000_000_000)
    watcher.cancel()
}
let seen = await watcher.value
timeout.cancel()
guard seen.isSuperset(of: expected) else { fail("events named \(seen.count) of the \(expected.count) ids") }

// Merging from memory adds once.
let other = try AnnotationStore.open(path: dir + "/other.db", access: .create)
try other.attachContent(path: content)
try other.createAnnotation(.note, at: AnchorRequest(passage: passage), note: "from the other store")
let incoming: [Change] = try other.changes(after: nil)
let report = try store.merge(incoming)
guard report.newChanges == 1, try store.merge(incoming).newChanges == 0 else { fail("merging did not add once") }

// GRDB's names stay the app's own beside Marginalia's (BesideGRDB.swift): the merged note goes into the app's table.
guard try copyIntoAppDatabase(store) == 1 else { fail("the app's own table did not take the one note") }

// The passage's annotations as a screen shows them: the list now, then the list after an awaited write.
let watchdog = Task {
    try await Task.sleep(nanoseconds: 10_000_000_000)
    fail("the observed list did not follow the write")
}
/// Whether the list observed in `passage` gains the bookmark an awaited write adds.
func observedListFollows(_ store: AnnotationStore, passage: String) async throws -> Bool {
    var lists = store.observeAnnotations(matching: AnnotationFilter(passage: passage)).makeAsyncIterator()
    let before = try await lists.next() ?? []
    let added = try await store.createAnnotation(.bookmark, at: AnchorRequest(passage: passage), progress: nil)
    let after = try await lists.next() ?? []
    return after.count == before.count + 1 && after.contains(added)
}
let followed = try await observedListFollows(store, passage: passage)
watchdog.cancel()
guard followed else { fail("the observed list is not the new one") }

// Errors have their own category.
do {
    try store.createAnnotation(.highlight, at: AnchorRequest(passage: "NO.SUCH"))
    fail("a missing passage was accepted")
} catch let error as MarginaliaError {
    guard error.category == .invalidArgument else { fail("a missing passage is \(error.category)") }
}

// Later calls after close throw, and do not crash.
try store.close()
do {
    _ = try store.annotations()
    fail("a closed store answered")
} catch let error as MarginaliaError {
    guard error.category == .closed else { fail("a closed store threw \(error.category)") }
}
print("ok: 400 writes from 4 tasks, \(seen.count) ids announced, merge added \(report.newChanges) once, "
    + "GRDB's names unambiguous, the observed list followed a write, errors typed")
