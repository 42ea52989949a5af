import Foundation
import Marginalia

/// Builds the measured store the way two devices of one reader would: a phone and a laptop that synchronise
/// by archive, so that the log holds two devices, edits, deletes and undeletes, and is longer than the state.
///
/// 1. The phone makes a third of the annotations (one transaction) and revisits some (another).
/// 2. The laptop imports the phone's archive: both now share that history.
/// 3. Each makes another third and revisits annotations, shared ones too; the phone's revisits come after the
///    laptop's, so that where both changed the same field the laptop's older change loses (a conflict).
/// 4. The phone merges the laptop's archive. The two stores shared half their changes: the merge is measured.
///
/// The phone's store then holds all N annotations; it is the store every later measurement reads.
struct StoreBuilder {
    struct Result {
        /// The phone's store after the merge: N annotations, two devices.
        var store: String
        var createdCount = 0
        /// The seconds of the three create batches, each many annotations in one transaction.
        var createSeconds = 0.0
        /// The seconds of the same batches' rows inserted through the C API (`CFloor.insertCreates`), each into a
        /// copy of its store from just before the library wrote them.
        var createFloorSeconds = 0.0
        /// Every create's rows, for the C-API floor.
        var createdRows = CreatedRows()
        var editChanges = 0
        var mergeSeconds = 0.0
        var mergeReport = ImportReport()
        /// The laptop's archive the phone merged, and a copy of the phone's store from just before.
        var mergeArchive: String
        var storeBeforeMerge: String
    }

    let workspace: Workspace
    let maker: AnnotationMaker
    let content: String
    /// Revisits per new annotation: 0.31 gives a log about 1.3 times as long as the state.
    let editsPerAnnotation = 0.31

    func build(annotations total: Int, using random: inout SeededGenerator) throws -> Result {
        let phone = workspace.run("phone.db")
        let laptop = workspace.run("laptop.db")
        var result = Result(store: phone, mergeArchive: workspace.run("laptop.jsonl.gz"),
                            storeBeforeMerge: workspace.run("phone-before-merge.db"))
        let shared = total / 3
        let phoneOwn = total / 3
        let laptopOwn = total - shared - phoneOwn
        var phoneIDs: [String] = []
        var phoneDeleted = Set<String>()

        Log.say("Building the store: \(total) annotations on two devices…")
        // 1. The phone's first third.
        try create(phone, shared, ids: &phoneIDs, into: &result, using: &random)
        try revisit(phone, shared, ids: phoneIDs, deleted: &phoneDeleted, into: &result, using: &random)
        let base = workspace.run("phone-base.jsonl.gz")
        try open(phone).exportArchive(toFile: base)
        // 2. The laptop takes it in.
        var laptopIDs = phoneIDs
        var laptopDeleted = phoneDeleted
        let (baseImport, baseSeconds) = try Timing.time { try open(laptop).importArchive(path: base) }
        Log.say("  laptop imported the phone's \(baseImport.newChanges) changes in "
            + String(format: "%.2f s", baseSeconds))
        // 3. Each goes its own way.
        try create(phone, phoneOwn, ids: &phoneIDs, into: &result, using: &random)
        try create(laptop, laptopOwn, ids: &laptopIDs, into: &result, using: &random)
        try revisit(laptop, laptopOwn, ids: laptopIDs, deleted: &laptopDeleted, into: &result, using: &random)
        try revisit(phone, phoneOwn, ids: phoneIDs, deleted: &phoneDeleted, into: &result, using: &random)
        // 4. The phone merges the laptop's archive.
        try open(laptop).exportArchive(toFile: result.mergeArchive)
        try workspace.copyStore(phone, to: result.storeBeforeMerge)
        let store = try open(phone)
        (result.mergeReport, result.mergeSeconds) = try Timing.time {
            try store.importArchive(path: result.mergeArchive)
        }
        Log.say("  phone merged the laptop's archive: \(result.mergeReport.newChanges) new, "
            + "\(result.mergeReport.duplicates) already there")
        return result
    }

    /// Opens a store with the annotated edition attached.
    func open(_ path: String) throws -> AnnotationStore {
        let store = try AnnotationStore.open(path: path, access: .create)
        try store.attachContent(path: content)
        return store
    }

    /// Many annotations in one transaction, through the library; the rows it wrote are kept for the floor.
    private func create(_ path: String, _ count: Int, ids: inout [String], into result: inout Result,
                        using random: inout SeededGenerator) throws {
        let store = try open(path)
        let marks = try CreatedRows.marks(store: path)
        // The floor writes the same rows into the same store: its B-trees and notes index as deep, its pages as
        // many.
        let before = workspace.run("create-floor.db")
        try workspace.copyStore(path, to: before)
        let (created, seconds) = try maker.createBatch(count, in: store, using: &random)
        ids += created
        result.createdCount += created.count
        result.createSeconds += seconds
        var rows = CreatedRows()
        try rows.append(store: path, after: marks)
        result.createFloorSeconds += try CFloor.insertCreates(rows, into: before, transactionPerAnnotation: false)
        workspace.remove(before)
        try result.createdRows.append(rows)
        Log.say("  \(Self.name(path)): \(count) annotations in \(String(format: "%.2f", seconds)) s")
    }

    /// Revisits of the store's annotations in one transaction: `editsPerAnnotation` for each of `count`.
    private func revisit(_ path: String, _ count: Int, ids: [String], deleted: inout Set<String>,
                         into result: inout Result, using random: inout SeededGenerator) throws {
        let edits = Int((Double(count) * editsPerAnnotation).rounded())
        let written = try maker.editBatch(edits, ids: ids, deleted: &deleted, in: try open(path), using: &random)
        result.editChanges += written
        Log.say("  \(Self.name(path)): \(written) revisits")
    }

    private static func name(_ path: String) -> String {
        String(path.split(separator: "/").last ?? "")
    }
}
