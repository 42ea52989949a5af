import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// A file-sync tool between several copies of a sync folder, as Syncthing or Dropbox behaves at its worst: it
/// delivers files late and out of order, half-written under their final name, first under temporary names or as
/// placeholders, as conflict copies, and more than once. Deletions (a compaction's) reach the others late too.
struct SimulatedSyncTool {
    /// One copy still to be made (or finished) from one folder to another.
    struct Delivery {
        var from: Int
        var to: Int
        var path: String
        var bytes: [UInt8]
        /// What the destination shows meanwhile, to be cleaned up when the copy completes.
        var leftover: String?
    }

    let folders: [String]
    var queue: [Delivery] = []
    var deletions: [(to: Int, path: String)] = []
    /// Every file copied so far, for duplicate deliveries.
    var delivered: [Delivery] = []
    var conflictCopies = 0

    init(folders: [String]) {
        self.folders = folders
    }

    /// Every regular file under `folder`, by relative path.
    static func files(in folder: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return files }
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = "\(folder)/\(relative)"
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        return files
    }

    /// Looks at folder `from` and plans a copy of every final file the folder `to` lacks or holds differently.
    mutating func scan(from: Int, to: Int) throws {
        let source = try Self.files(in: folders[from])
        let target = try Self.files(in: folders[to])
        for (path, bytes) in source.sorted(by: { $0.key < $1.key }) {
            let name = (path as NSString).lastPathComponent
            // A sync tool never copies another program's temporary files, nor its own leftovers.
            guard !name.hasPrefix("."), !name.contains("sync-conflict"), target[path] != bytes else { continue }
            guard !queue.contains(where: { $0.to == to && $0.path == path }) else { continue }
            // A copy still arriving at the source is not relayed.
            guard !queue.contains(where: { $0.to == from && $0.path == path }) else { continue }
            queue.append(Delivery(from: from, to: to, path: path, bytes: bytes))
        }
    }

    /// A compaction at folder `from` removed `paths`: the others remove them, later.
    mutating func removed(_ paths: [String], at from: Int) {
        for to in folders.indices where to != from {
            for path in paths { deletions.append((to, path)) }
        }
    }

    /// Does one thing, chosen by `generator`: a delivery (whole, half, under a temporary name, as a placeholder,
    /// as a conflict copy), a duplicate, or a deletion.
    mutating func step(using generator: inout SeededGenerator) throws {
        let roll = Int.random(in: 0..<100, using: &generator)
        if roll < 8, !deletions.isEmpty {
            let deletion = deletions.remove(at: Int.random(in: 0..<deletions.count, using: &generator))
            try? FileManager.default.removeItem(atPath: "\(folders[deletion.to])/\(deletion.path)")
            return
        }
        if roll < 14, let duplicate = delivered.randomElement(using: &generator) {
            try write(duplicate.bytes, to: duplicate.to, duplicate.path)
            return
        }
        guard !queue.isEmpty else { return }
        let index = Int.random(in: 0..<queue.count, using: &generator)
        var delivery = queue[index]
        let directory = (delivery.path as NSString).deletingLastPathComponent
        let name = (delivery.path as NSString).lastPathComponent
        let style = Int.random(in: 0..<100, using: &generator)
        if delivery.leftover == nil && style < 20 && delivery.bytes.count > 1 {
            // Half of it, under its final name (a tool that writes in place, or a copy cut off).
            let half = Int.random(in: 1..<delivery.bytes.count, using: &generator)
            try write(Array(delivery.bytes.prefix(half)), to: delivery.to, delivery.path)
            delivery.leftover = ""
            queue[index] = delivery
        } else if delivery.leftover == nil && style < 35 {
            let temporary = "\(directory)/.syncthing.\(name).tmp"
            try write(Array(delivery.bytes.prefix(delivery.bytes.count / 2)), to: delivery.to, temporary)
            delivery.leftover = temporary
            queue[index] = delivery
        } else if delivery.leftover == nil && style < 45 {
            let placeholder = "\(directory)/.\(name).icloud"
            try write(Array("placeholder".utf8), to: delivery.to, placeholder)
            delivery.leftover = placeholder
            queue[index] = delivery
        } else {
            if style >= 92 {
                conflictCopies += 1
                let copy = "\(directory)/\(name).sync-conflict-20261201-120000-\(conflictCopies).jsonl.gz"
                try write(delivery.bytes, to: delivery.to, copy)
            }
            try write(delivery.bytes, to: delivery.to, delivery.path)
            if let leftover = delivery.leftover, !leftover.isEmpty {
                try? FileManager.default.removeItem(atPath: "\(folders[delivery.to])/\(leftover)")
            }
            queue.remove(at: index)
            delivered.append(delivery)
        }
    }

    /// Completes every copy and deletion planned so far.
    mutating func drain() throws {
        for delivery in queue {
            try write(delivery.bytes, to: delivery.to, delivery.path)
            if let leftover = delivery.leftover, !leftover.isEmpty {
                try? FileManager.default.removeItem(atPath: "\(folders[delivery.to])/\(leftover)")
            }
        }
        queue.removeAll()
        for deletion in deletions {
            try? FileManager.default.removeItem(atPath: "\(folders[deletion.to])/\(deletion.path)")
        }
        deletions.removeAll()
    }

    private func write(_ bytes: [UInt8], to folder: Int, _ path: String) throws {
        let url = URL(fileURLWithPath: "\(folders[folder])/\(path)")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }
}

/// Checks around one sync round: it wrote, changed or removed nothing outside `devices/<its id>/`, and no
/// database, WAL or lock file is in the folder.
enum SyncChecks {
    static func round(_ store: AnnotationStore, folder: String, compact: Bool = false,
                      recipients: [AgeRecipient]? = nil, identities: [AgeIdentity] = [], encrypt: Bool? = nil,
                      _ comment: Comment? = nil) throws -> SyncReport {
        let before = try SimulatedSyncTool.files(in: folder)
        let idBefore = store.deviceID
        let report = try store.sync(folder: folder, compact: compact, recipients: recipients, identities: identities,
                                    encrypt: encrypt)
        let after = try SimulatedSyncTool.files(in: folder)
        let allowed = ["devices/\(idBefore)/", "devices/\(report.deviceID)/"]
        for path in Set(before.keys).union(after.keys) where before[path] != after[path] {
            #expect(allowed.contains { path.hasPrefix($0) },
                    "the round of \(idBefore) touched \(path); \(comment ?? "")")
        }
        for path in after.keys {
            let name = (path as NSString).lastPathComponent
            let databaseLike = [".db", "-wal", "-shm", "-journal", ".lock"].contains { name.hasSuffix($0) }
            #expect(!databaseLike, "\(path) in the sync folder; \(comment ?? "")")
            if path.hasPrefix("devices/\(report.deviceID)/") && before[path] == nil {
                #expect(!name.hasPrefix("."), "a temporary file \(path) outlived the round")
            }
        }
        return report
    }
}

/// Stores that sync through one folder belong to one roster: the first round in an empty folder founds it, and a
/// store outside it reads and writes nothing there. A test admits each store before it meets the others.
enum SyncRosters {
    /// What a round of a store that joined and is not admitted yet says (`SyncReport.notSpeaking`).
    static let waiting = "waiting to be admitted: its request is in the folder, and the inviting device admits it at "
        + "its next sync"

    /// Invites `store` on `member`, joins, and lets the rounds run (the store's, the member's, which admits it, and
    /// the store's again, which learns it): the store is then admitted and knows it.
    static func admit(_ store: AnnotationStore, by member: AnnotationStore, folder: String) throws {
        try join(store, invitedBy: member)
        _ = try store.sync(folder: folder)
        let admitting = try member.sync(folder: folder)
        #expect(admitting.admitted.map(\.device) == [store.deviceID])
        _ = try store.sync(folder: folder)
    }

    /// `store` joins the roster of `member` (founded now when it has none) with an invitation read back from the
    /// bytes of its file; no round runs.
    static func join(_ store: AnnotationStore, invitedBy member: AnnotationStore) throws {
        let invitation = try DeviceInvitation(bytes: try member.invite().encoded(), file: "invitation.json")
        try store.join(invitation, name: "new")
    }

    /// Makes `stores` one roster in `folder`, the first founding it and admitting each of the others. Run before
    /// the stores make changes, the rounds carry roster files only, and the rounds a test runs next find the
    /// folder as stores that were always in one roster leave it.
    static func oneRoster(_ stores: [AnnotationStore], folder: String) throws {
        for store in stores.dropFirst() { try admit(store, by: stores[0], folder: folder) }
    }
}
