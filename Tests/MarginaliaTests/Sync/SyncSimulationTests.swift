import Foundation
import Testing
@testable import Marginalia
import MarginaliaTestSupport

/// Seeded: three or more stores, each syncing its own copy of a folder that a simulated sync tool keeps in step
/// at its worst, make random creates, edits, deletes, undeletes and positions. Once everything has arrived every
/// store holds the identical state, every change made anywhere is everywhere, and no round wrote outside its own
/// device directory. A failure names its seed: `MARGINALIA_TEST_SEED=<seed> swift test --filter SyncSimulation`.
@Suite struct SyncSimulationTests {
    static let steps = 220

    @Test func storesSyncingThroughAnUnreliableToolEndIdentical() throws {
        for seed in TestSeed.seeds(count: 2) {
            print("SyncSimulationTests seed \(seed) (replay with MARGINALIA_TEST_SEED=\(seed))")
            do {
                try run(seed: seed)
            } catch {
                Issue.record(error, "seed \(seed) (replay with MARGINALIA_TEST_SEED=\(seed))")
            }
        }
    }

    /// Makes the stores one roster, each syncing its own copy of the folder: the first founds it and admits each of
    /// the others, every file carried to every copy (whole, at once) after each round.
    static func oneRoster(_ stores: [AnnotationStore], folders: [String], tool: inout SimulatedSyncTool) throws {
        func round(_ index: Int) throws -> SyncReport {
            let report = try stores[index].sync(folder: folders[index])
            for from in folders.indices {
                for to in folders.indices where to != from { try tool.scan(from: from, to: to) }
            }
            try tool.drain()
            return report
        }
        for index in stores.indices.dropFirst() {
            try SyncRosters.join(stores[index], invitedBy: stores[0])
            _ = try round(index)
            #expect(try round(0).admitted.map(\.device) == [stores[index].deviceID])
            _ = try round(index)
        }
    }

    func run(seed: UInt64) throws {
        var work = try ConvergenceSimulation(seed: seed)
        let comment: Comment = "seed \(seed) (replay with MARGINALIA_TEST_SEED=\(seed))"
        let folders = try work.replicas.map { replica in
            let folder = work.directory.path("folder-\(replica.name)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            return folder
        }
        var tool = SimulatedSyncTool(folders: folders)
        try Self.oneRoster(work.replicas.map(\.store), folders: folders, tool: &tool)
        var pendingSeen = 0
        func round(_ index: Int, compact: Bool = false) throws {
            let report = try SyncChecks.round(work.replicas[index].store, folder: folders[index], compact: compact,
                                              comment)
            #expect(report.damaged == [], comment)
            pendingSeen += report.pending.count
            if !report.removed.isEmpty { tool.removed(report.removed, at: index) }
        }
        for _ in 0..<Self.steps {
            let index = Int.random(in: 0..<work.replicas.count, using: &work.generator)
            let replica = work.replicas[index]
            work.moveClock(of: replica)
            switch Int.random(in: 0..<100, using: &work.generator) {
            case 0..<12: try work.create(on: replica)
            case 12..<30: try work.edit(on: replica)
            case 30..<36: try work.deleteOrUndelete(on: replica, delete: true)
            case 36..<40: try work.deleteOrUndelete(on: replica, delete: false)
            case 40..<45: try work.setPosition(on: replica)
            case 45..<60: try round(index, compact: work.chance(10))
            case 60..<72:
                let other = Int.random(in: 0..<folders.count, using: &work.generator)
                if other != index { try tool.scan(from: index, to: other) }
            case 72..<97: try tool.step(using: &work.generator)
            default: try replica.reopen()
            }
        }
        // Everything arrives: complete copies, then a round on every store, until a round neither writes nor
        // applies anything. Then one more round of every store must find nothing to do.
        var settled = false
        for _ in 0..<8 {
            for from in folders.indices {
                for to in folders.indices where to != from { try tool.scan(from: from, to: to) }
            }
            try tool.drain()
            var busy = false
            for index in folders.indices {
                let report = try SyncChecks.round(work.replicas[index].store, folder: folders[index], comment)
                busy = busy || report.written != nil || report.compactedInto != nil || report.changesApplied > 0
                #expect(report.damaged == [], comment)
            }
            if !busy && tool.queue.isEmpty {
                settled = true
                break
            }
        }
        #expect(settled, "rounds still write or apply after everything arrived, \(comment)")
        for index in folders.indices {
            let report = try SyncChecks.round(work.replicas[index].store, folder: folders[index], comment)
            #expect(report.written == nil && report.changesApplied == 0,
                    "not settled, \(comment)")
        }
        let state = try work.replicas[0].state()
        #expect(state.changeIDs.count == work.made, comment)
        for replica in work.replicas {
            #expect(try replica.state() == state, "\(replica.name), \(comment)")
            #expect(try replica.store.verify().problems == [], "\(replica.name), \(comment)")
        }
        try work.checkAgainstFold(work.replicas[0].store)
        print("SyncSimulationTests seed \(seed): \(work.made) changes, \(pendingSeen) pending files met on the way, "
              + "\(tool.conflictCopies) conflict copies")
    }
}
