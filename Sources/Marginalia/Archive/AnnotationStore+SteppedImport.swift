import Foundation

extension AnnotationStore {
    /// The imports that had been stopped midway and that opening the store abandoned instead of finishing, because
    /// the copy of the archive kept beside the store was not the file kept (changed, missing, not a regular file):
    /// nothing of the copy was merged, what the import merged before it stopped stays, and importing the archive
    /// again finishes it; usually none.
    public var abandonedImports: [AbandonedImport] { engine.unfinishedWork.abandoned.compactMap { $0 as? AbandonedImport } }

    /// How long one step of an import holds the writer, at most (but for the last batch of changes it began).
    static let importStepNanoseconds: UInt64 = 20_000_000

    /// Merges the staged archive in steps (`PendingImport`), each a short write transaction of its own, so that
    /// the app's writes take the writer between them; the staged copy is kept beside the store first, so that an
    /// interrupted import is finished when the store is next opened. From the first step on, the import runs to
    /// its end: `progress` is told how far it has come, but can no longer stop it.
    func importInSteps(_ staging: StagingFile, acceptFuture: Bool, limits: ArchiveLimits,
                       progress: ProgressHandler?) throws -> ImportReport
    {
        let staged = staging.staged
        var report = ImportReport()
        report.header = staged.summary.header
        (report.changesRead, report.duplicates) = (staged.known, staged.known)
        // The steps commit one by one: the brake on mass deletion looks at the whole file before the first.
        do {
            try engine.writing { writer in
                guard !writer.allowsMassDeletion else { return }
                try staging.attached(to: writer) {
                    try DeletionBrake.checkStaged(StagedArchive.tables(in: "staging").staged, in: writer.db)
                }
            }
        } catch {
            throw MarginaliaError(error)
        }
        let keptCopy: KeptCopy.Fingerprint
        do {
            keptCopy = try staging.keep(as: PendingImport.newStagingPath(beside: path))
        } catch {
            throw MarginaliaError(error)
        }
        var pending = PendingImport(staged: staged, stagingPath: staging.path, keptCopy: keptCopy,
                                    acceptFuture: acceptFuture, limits: limits)
        var finished = false
        // Stopped midway, the import is finished by the next open of the store from the copy kept beside it; a
        // copy no step recorded is removed then.
        var completed = false
        defer { if !completed { staging.leaveForNextOpen() } }
        while !finished {
            engine.yieldToWaitingWriters()
            finished = try engine.writing { writer in
                try staging.attached(to: writer) {
                    do {
                        return try ArchiveImporter(store: writer).applyImportStep(
                            &pending, budget: Self.importStepNanoseconds, into: &report.merge)
                    } catch let conflict as ChangeConflict {
                        // Met only by a change that came another way since the file was checked: the import ends
                        // here, with what it merged so far.
                        try PendingImport.records(in: writer.db).remove(pending.key)
                        completed = true
                        throw ArchiveError(file: staged.path, line: conflict.position, kind: .conflict,
                                           reason: conflict.reason)
                    }
                }
            }
            _ = progress?(ProgressReport(task: "importing changes", done: pending.changesRead,
                                         total: staged.summary.counts.changes))
        }
        completed = true
        return report
    }
}
