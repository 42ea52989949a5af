import Foundation
import Marginalia

/// Peak resident memory of `marginalia export` and `marginalia import`, run as their own processes under
/// `/usr/bin/time -v`, at N and at a large store built once from a generated archive.
struct MemoryBenchmarks {
    let workspace: Workspace
    let report: Report
    let cli: String
    /// The budget: flat as the store grows.
    static let limitMiB = 64.0

    /// Exports `store` and imports the archive into an empty store, each as a CLI process; with
    /// `sizeAgainstExport`, also the store's checkpointed bytes per annotation against that full archive's
    /// uncompressed JSON (target 1.2×).
    func measure(store: String, annotations: Int, label: String, sizeAgainstExport: Bool = false) throws {
        Log.say("Peak memory at \(annotations) annotations…")
        let archive = workspace.run("memory-\(label).jsonl.gz")
        let imported = workspace.run("memory-\(label)-imported.db")
        workspace.remove(archive)
        workspace.remove(imported)
        let export = try Subprocess.run([cli, "--store", store, "export", archive], underTime: true)
        if sizeAgainstExport {
            let bytesFile = workspace.run("memory-\(label).uncompressed-bytes")
            try Subprocess.shell("gzip -dc \(Subprocess.quote(archive)) | wc -c > \(Subprocess.quote(bytesFile))")
            guard let text = try? String(contentsOfFile: bytesFile, encoding: .utf8),
                  let bytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw BenchError("cannot read the size of \(archive)")
            }
            report.add(StoreSize.measurement(
                id: "storeBytes.large", name: "store size against its own full archive",
                store: try StoreSize.checkpointed(store), archiveBytes: bytes,
                archiveName: "its export's uncompressed JSON", target: .sizeRatioAtMost(1.2)))
        }
        try Subprocess.initStore(cli, imported)
        let importRun = try Subprocess.run([cli, "--store", imported, "import", archive], underTime: true)
        workspace.remove(imported)
        report.extra("memory.\(label).exportSeconds", export.seconds)
        report.extra("memory.\(label).importSeconds", importRun.seconds)
        report.extra("memory.\(label).archiveBytes", workspace.size(archive))
        for (what, run) in [("export", export), ("import", importRun)] {
            report.add(Measurement(
                id: "memory.\(what).\(label)",
                name: "peak memory, marginalia \(what), \(Report.grouped(Double(annotations))) annotations",
                figure: Quantity(value: run.peakMiB, unit: "MiB"), seconds: run.seconds, target: .below(Self.limitMiB)))
        }
        workspace.remove(archive)
    }

    /// The large store: where it is, its annotations, and the uncompressed bytes of the archive it was imported
    /// from (nil for a store cached by a version of the benchmark that did not record them).
    struct LargeStore {
        var path: String
        var annotations: Int
        var archiveBytes: Int?
    }

    /// A store of about `annotations` annotations: the measured store's log tiled (fresh ids, earlier times)
    /// into a generated archive and imported by the CLI. Cached in the work directory, with the archive's
    /// uncompressed size (the archive itself is removed).
    func largeStore(from store: String, annotations: Int, seed: UInt64) throws -> LargeStore {
        let directory = workspace.cache("memory-\(annotations)-seed\(seed)")
        let path = "\(directory)/store.db"
        let countFile = "\(directory)/annotations"
        let bytesFile = "\(directory)/archive-uncompressed-bytes"
        func number(_ file: String) -> Int? {
            (try? String(contentsOfFile: file, encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        if workspace.exists(path), let count = number(countFile) {
            Log.say("Using the cached \(count)-annotation store in \(directory)")
            return LargeStore(path: path, annotations: count, archiveBytes: number(bytesFile))
        }
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let archive = "\(directory)/tiled.jsonl.gz"
        Log.say("Generating a \(annotations)-annotation archive…")
        let count = try writeTiledArchive(from: store, annotations: annotations, to: archive, seed: seed)
        Log.say("Building the \(count)-annotation store (marginalia import)…")
        try Subprocess.initStore(cli, path)
        let build = try Subprocess.run([cli, "--store", path, "import", archive], underTime: true)
        report.extra("memory.large.buildSeconds", build.seconds)
        report.extra("memory.large.buildPeakMiB", build.peakMiB)
        try Subprocess.shell("gzip -dc \(Subprocess.quote(archive)) | wc -c > \(Subprocess.quote(bytesFile))")
        guard let archiveBytes = number(bytesFile) else { throw BenchError("cannot read the size of \(archive)") }
        try? FileManager.default.removeItem(atPath: archive)
        try String(count).write(toFile: countFile, atomically: true, encoding: .utf8)
        return LargeStore(path: path, annotations: count, archiveBytes: archiveBytes)
    }

    /// The large store's checkpointed bytes per annotation against the archive `marginalia import` made it from.
    func storeSize(_ large: LargeStore) throws {
        guard let archiveBytes = large.archiveBytes else {
            report.note("the cached \(large.path) does not record its archive's size: remove it to measure the "
                + "store's size at \(Report.grouped(Double(large.annotations))) annotations")
            return
        }
        report.extra("memory.large.archiveUncompressedBytes", archiveBytes)
        // No target against this archive: it holds each text once, in the changes, where the store (like a full
        // archive) holds it in its log and again in the current annotations. The target is judged against the
        // store's own full archive (`measure(…, sizeAgainstExport: true)`).
        report.add(StoreSize.measurement(
            id: "storeBytes.largeChangesOnly", name: "store size, marginalia import of a changes-only archive",
            store: try StoreSize.checkpointed(large.path), archiveBytes: archiveBytes,
            archiveName: "that archive's uncompressed JSON", target: nil))
    }

    /// Writes copies of `store`'s log, each with fresh annotation and change ids and shifted into the past,
    /// until it holds at least `annotations` annotations. Only change records: import rebuilds the state.
    private func writeTiledArchive(from store: String, annotations: Int, to path: String, seed: UInt64) throws -> Int {
        let source = try AnnotationStore.open(path: store, access: .readOnly)
        let changes = try source.log()
        let perCopy = try source.annotationCounts()
        let annotationsPerCopy = perCopy.live + perCopy.deleted
        let copies = max(1, (annotations + annotationsPerCopy - 1) / annotationsPerCopy)
        guard let first = changes.first?.hlc.milliseconds, let last = changes.last?.hlc.milliseconds else {
            throw BenchError("the store has no changes to tile")
        }
        let span = last - first + 1000
        var random = SeededGenerator(seed: seed &+ 77)
        let sink = try FileSink(path: path)
        let gzip = try GzipWriter(sink: sink)
        var lines = LineWriter(blockSize: 1 << 19) { block in try gzip.write(block) }
        try lines.writeLine { writer in
            try writer.beginObject()
            for (key, value) in [("type", "header"), ("format", ArchiveFormat.name)] {
                try writer.key(key)
                try writer.string(value)
            }
            // Format 1, whose header names no head of a hash chain: these changes are no one store's log (format
            // 2's head is the writer's chain, which a tiling of copies with fresh ids does not have).
            try writer.key("formatVersion")
            try writer.int(1)
            try writer.key("device")
            try writer.string(source.deviceID)
            try writer.key("createdAt")
            try writer.string(Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds()))
            try writer.key("schemaVersion")
            try writer.int(1)
            try writer.key("editions")
            try writer.beginArray()
            try writer.string("eminescu-2026.1")
            try writer.endArray()
            // Partial: it holds only changes, so its (absent) state records are not checked against them.
            try writer.key("partial")
            try writer.bool(true)
            try writer.endObject()
        }
        var written = 0
        for copy in (0..<copies).reversed() {
            var ids: [String: String] = [:]
            let shift = Int64(copy) * span
            for change in changes {
                var tiled = change
                if change.entity == .annotation {
                    if let known = ids[change.entityID] {
                        tiled.entityID = known
                    } else {
                        let fresh = random.uuid()
                        ids[change.entityID] = fresh
                        tiled.entityID = fresh
                    }
                }
                tiled.changeID = random.uuid()
                tiled.hlc = HLC(milliseconds: change.hlc.milliseconds - shift, counter: change.hlc.counter)
                // Format 1 has no wall times.
                tiled.wall = nil
                try lines.write(.object(ChangeCodec.record(tiled)))
                written += 1
            }
        }
        try lines.writeLine { writer in
            try writer.beginObject()
            try writer.key("type")
            try writer.string("trailer")
            try writer.key("counts")
            try writer.beginObject()
            for (key, value) in [("change", written), ("annotation", 0), ("position", 0)] {
                try writer.key(key)
                try writer.int(value)
            }
            try writer.endObject()
            try writer.endObject()
        }
        try lines.flush()
        try gzip.finish()
        try sink.close()
        return copies * annotationsPerCopy
    }
}
