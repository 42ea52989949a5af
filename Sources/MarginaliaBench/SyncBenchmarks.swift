import Foundation
import Marginalia

/// The cost of a sync round through a shared folder: a round with nothing new against opening the store (both
/// interleaved, run by run), and the size of the segment one new note writes.
struct SyncBenchmarks {
    let workspace: Workspace
    let options: BenchOptions
    let report: Report

    /// On a copy of `store` (with `annotations` annotations) that has published its whole log to a folder where
    /// a second device, which founded the folder's roster and admitted the copy, has written one segment.
    func run(store: String, annotations: Int, maker: AnnotationMaker, content: String,
             using random: inout SeededGenerator) throws {
        Log.say("Sync rounds…")
        let copy = workspace.run("sync.db")
        try workspace.copyStore(store, to: copy)
        let folder = workspace.run("sync-folder")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Another device's segment, so that a round lists and skips two directories.
        let other = try AnnotationStore.open(path: workspace.run("sync-other.db"), access: .create)
        try other.attachContent(path: content)
        let request = maker.request(using: &random)
        try other.createAnnotation(request.kind, at: request.anchor, note: "from the other device")
        _ = try other.sync(folder: folder)
        // The copy joins the roster the other device's round founded. Its first round, while it waits to be
        // admitted, reads the other's segment and writes its whole log, signed; the other's next round admits it,
        // and the copy's next learns it, so that the rounds measured after are those of a device of the roster.
        let joining = try AnnotationStore.open(path: copy, access: .readWrite)
        try joining.join(try other.invite())
        try joining.close()

        let (first, firstSeconds) = try Timing.time {
            let store = try AnnotationStore.open(path: copy, access: .readWrite)
            defer { try? store.close() }
            return try store.sync(folder: folder)
        }
        guard try other.sync(folder: folder).admitted.map(\.device) == [first.deviceID] else {
            throw BenchError("the folder's founder did not admit the store's copy")
        }
        try other.close()
        let admitted = try AnnotationStore.open(path: copy, access: .readWrite)
        _ = try admitted.sync(folder: folder)
        try admitted.close()
        report.extra("sync.firstRound.seconds", firstSeconds)
        report.extra("sync.firstRound.segmentBytes", first.written?.bytes ?? 0)
        report.extra("sync.firstRound.changes", first.written?.changes ?? 0)

        // Interleaved: opening and closing the store, against opening it, a round with nothing new, closing.
        func open() throws -> Double {
            try Timing.time {
                let store = try AnnotationStore.open(path: copy, access: .readWrite)
                try store.close()
            }.1
        }
        func round() throws -> Double {
            let (result, seconds) = try Timing.time {
                let store = try AnnotationStore.open(path: copy, access: .readWrite)
                defer { try? store.close() }
                return try store.sync(folder: folder)
            }
            guard result.written == nil, result.changesApplied == 0 else {
                throw BenchError("a sync round with nothing new wrote or applied changes")
            }
            return seconds
        }
        let (opens, rounds) = try Timing.interleaved(pairs: options.quick ? 11 : 41, open, round)
        let openMedian = Timing.percentile(opens, 50)
        let roundMedian = Timing.percentile(rounds, 50)
        report.add(Measurement(
            id: "sync.noop", name: "sync round with nothing new (\(Report.grouped(Double(annotations))) annotations)",
            figure: Quantity(value: roundMedian * 1000, unit: "ms"), seconds: roundMedian,
            referenceName: "opening and closing the store", reference: Quantity(value: openMedian * 1000, unit: "ms"),
            referenceSeconds: openMedian, target: .timeRatioAtMost(3)))

        // One new note: the segment it writes.
        let store = try AnnotationStore.open(path: copy, access: .readWrite)
        defer { try? store.close() }
        try store.attachContent(path: content)
        let note = maker.request(using: &random)
        try store.createAnnotation(.note, at: note.anchor, note: "o notă nouă, scrisă o singură dată")
        let written = try store.sync(folder: folder).written
        guard let written, written.changes == 1 else {
            throw BenchError("one new note wrote \(written?.changes ?? 0) changes to the folder")
        }
        report.add(Measurement(
            id: "sync.oneNote", name: "segment written for one new note",
            figure: Quantity(value: Double(written.bytes), unit: "bytes"), target: .below(8 * 1024)))
    }
}

extension SyncBenchmarks {
    /// A late joiner: a new store catching up from a folder where four devices have each published a quarter of
    /// `changes` changes, against a new store importing the same changes from one archive. Each through the
    /// `marginalia` binary when there is one beside this one (time and peak memory), else in this process.
    func lateJoiner(changes: Int, maker: AnnotationMaker, content: String, using random: inout SeededGenerator)
        throws
    {
        Log.say("A late joiner catching up from \(changes) changes of 4 devices…")
        let folder = workspace.run("joiner-folder")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The first device founds the folder's roster and admits the others, and invites the joiner.
        var founder: AnnotationStore?
        let founderPath = workspace.run("joiner-device-0.db")
        for device in 0..<4 {
            let path = workspace.run("joiner-device-\(device).db")
            workspace.remove(path)
            let store = try AnnotationStore.open(path: path, access: .create)
            try store.attachContent(path: content)
            try store.batch {
                for index in 0..<(changes / 4) {
                    let request = maker.request(using: &random)
                    try store.createAnnotation(request.kind, at: request.anchor, note: "notă \(device)-\(index)")
                }
            }
            if let founder {
                try Self.admit(store, by: founder, folder: folder)
                try store.close()
                workspace.remove(path)
            } else {
                _ = try store.sync(folder: folder)
                founder = store
            }
        }
        let joiner = workspace.run("joiner.db")
        let archive = workspace.run("joiner.jsonl.gz")
        let imported = workspace.run("joiner-imported.db")
        for path in [joiner, archive, imported] { workspace.remove(path) }
        // The joiner holds an invitation, and catches up at its first round, before it is admitted.
        guard let founder else { throw BenchError("no device founded the folder's roster") }
        let invited = try AnnotationStore.open(path: joiner, access: .create)
        try invited.join(try founder.invite())
        try invited.close()
        // A second joiner, to catch up through an S3 bucket (moto's, on loopback) when the tools are here.
        let remoteJoiner = workspace.run("joiner-remote.db")
        workspace.remove(remoteJoiner)
        try? FileManager.default.removeItem(atPath: "\(remoteJoiner).mirror-benchs3_bench")
        let invitedToo = try AnnotationStore.open(path: remoteJoiner, access: .create)
        try invitedToo.join(try founder.invite())
        try invitedToo.close()
        try founder.close()
        workspace.remove(founderPath)
        let (syncSeconds, syncMiB) = try timed(["sync", folder], store: joiner) {
            let store = try AnnotationStore.open(path: joiner, access: .create)
            defer { try? store.close() }
            let report = try store.sync(folder: folder)
            guard report.changesApplied == changes / 4 * 4 else {
                throw BenchError("the late joiner applied \(report.changesApplied) changes")
            }
        }
        try lateJoinerThroughS3(folder: folder, store: remoteJoiner, changes: changes / 4 * 4,
                                folderSeconds: syncSeconds)
        let source = try AnnotationStore.open(path: joiner, access: .readWrite)
        _ = try source.exportArchive(toFile: archive)
        try source.close()
        let (importSeconds, importMiB) = try timed(["import", archive], store: imported) {
            let store = try AnnotationStore.open(path: imported, access: .create)
            defer { try? store.close() }
            _ = try store.importArchive(path: archive)
        }
        let count = Report.grouped(Double(changes / 4 * 4))
        report.add(Measurement(
            id: "sync.lateJoiner", name: "a new store catching up from a folder of 4 devices (\(count) changes)",
            figure: Quantity(value: syncSeconds, unit: "s"), seconds: syncSeconds,
            referenceName: "importing the same changes from one archive",
            reference: Quantity(value: importSeconds, unit: "s"), referenceSeconds: importSeconds,
            target: .timeRatioAtMost(2)))
        if let syncMiB, let importMiB {
            report.add(Measurement(
                id: "memory.sync.lateJoiner", name: "peak memory, marginalia sync of a late joiner (\(count) changes)",
                figure: Quantity(value: syncMiB, unit: "MiB"), seconds: syncSeconds, target: .below(64)))
            report.extra("memory.import.lateJoinerMiB", importMiB)
        }
        for path in [joiner, archive, imported] { workspace.remove(path) }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The late joiner again, through moto's S3 server on loopback and rclone (`sync --remote`), against the
    /// plain folder's round (`folderSeconds`); skipped, and said, without the binary, rclone or moto (the venv of
    /// `$MARGINALIA_TEST_VENV`, else `/opt/marginalia-venv`).
    private func lateJoinerThroughS3(folder: String, store: String, changes: Int, folderSeconds: Double) throws {
        let venv = ProcessInfo.processInfo.environment["MARGINALIA_TEST_VENV"] ?? "/opt/marginalia-venv"
        guard let cli = workspace.cli, Subprocess.available("rclone"),
              FileManager.default.isExecutableFile(atPath: "\(venv)/bin/moto_server") else {
            Log.say("  (no late joiner through S3: it needs the marginalia binary, rclone and moto's server)")
            return
        }
        let port = 20_000 + Int(getpid() % 20_000)
        let moto = Process()
        moto.executableURL = URL(fileURLWithPath: "\(venv)/bin/moto_server")
        moto.arguments = ["-H", "127.0.0.1", "-p", String(port)]
        moto.standardOutput = FileHandle.nullDevice
        moto.standardError = FileHandle.nullDevice
        try moto.run()
        defer {
            kill(moto.processIdentifier, SIGKILL)
            moto.waitUntilExit()
        }
        for name in ProcessInfo.processInfo.environment.keys where name.hasPrefix("AWS_") { unsetenv(name) }
        for (name, value) in ["TYPE": "s3", "PROVIDER": "Other", "ENDPOINT": "http://127.0.0.1:\(port)",
                              "REGION": "us-east-1", "ACCESS_KEY_ID": "bench", "SECRET_ACCESS_KEY": "bench"] {
            setenv("RCLONE_CONFIG_BENCHS3_\(name)", value, 1)
        }
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? Subprocess.run(["rclone", "mkdir", "benchs3:bench"])) != nil
            if !ready { usleep(200_000) }
        }
        guard ready else { throw BenchError("moto's S3 server did not start on port \(port)") }
        try Subprocess.run(["rclone", "copy", folder, "benchs3:bench"])
        try Subprocess.initStore(cli, store)
        let run = try Subprocess.run([cli, "--store", store, "sync", "--remote", "benchs3:bench"], underTime: true)
        let count = Report.grouped(Double(changes))
        report.add(Measurement(
            id: "sync.lateJoinerS3",
            name: "a new store catching up through an S3 bucket on loopback (moto, rclone; \(count) changes)",
            figure: Quantity(value: run.seconds, unit: "s"), seconds: run.seconds,
            referenceName: "catching up from the same folder on disk",
            reference: Quantity(value: folderSeconds, unit: "s"), referenceSeconds: folderSeconds,
            target: .timeRatioAtMost(1.5)))
        workspace.remove(store)
        try? FileManager.default.removeItem(atPath: "\(store).mirror-benchs3_bench")
    }

    /// Admits `store` to the roster of `member` through `folder`: an invitation in process, the store's round (it
    /// asks to be admitted, and writes its log), the member's (it admits it).
    private static func admit(_ store: AnnotationStore, by member: AnnotationStore, folder: String) throws {
        try store.join(try member.invite())
        _ = try store.sync(folder: folder)
        guard try member.sync(folder: folder).admitted.map(\.device) == [store.deviceID] else {
            throw BenchError("the folder's founder did not admit device \(store.deviceID)")
        }
    }

    /// Runs `marginalia --store STORE ARGUMENTS` when the binary is there (seconds and peak MiB), else `body` in
    /// this process (seconds only).
    private func timed(_ arguments: [String], store: String, _ body: () throws -> Void) throws -> (Double, Double?) {
        if let cli = workspace.cli {
            try Subprocess.initStore(cli, store)
            let run = try Subprocess.run([cli, "--store", store] + arguments, underTime: true)
            return (run.seconds, run.peakMiB)
        }
        return (try Timing.time(body).1, nil)
    }
}
