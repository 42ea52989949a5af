/// verify's verdict for a report, made beside the report's own pass over the log.
///
/// The plan is chosen once. `shared`: when the report reads every annotation change (no `asOf`, no document, no
/// backup), its pass over the log also feeds verify's replay of the annotations (`Verifier.AnnotationReplay`), so
/// the log is read and decoded once; the checks before the replay (integrity, guards, hash chain) run on a
/// connection of their own meanwhile, and those after it (positions, device names, roster) follow the pass. The
/// verdict is `verify()`'s, problem for problem in its order; when it could differ (a change rejected, whose
/// problem's place depends on the stream's order, or a write between the two connections' reads), `verify()` runs
/// whole instead. `separate`: `verify()` (or `verify(against:)`) runs whole on its own connection.
struct AuditVerification {
    enum Plan: Equatable {
        case shared, separate
    }

    let plan: Plan
    /// The replay the report's pass feeds, under `shared`.
    var replay = Verifier.AnnotationReplay()
    private let store: AnnotationStore
    private let work: BackgroundWork<VerificationReport>
    /// What the pass's own read found: the annotations' replay and the checks after it, and the log's last seq.
    private var afterPass: (report: VerificationReport, lastSequence: Int64)?

    /// The plan for a report of `filter`, checked against `backup` when one is given.
    static func plan(_ filter: AuditFilter, backup: String?) -> Plan {
        filter.asOf == nil && filter.document == nil && backup == nil ? .shared : .separate
    }

    /// Starts the work that runs beside the report's pass.
    init(store: AnnotationStore, filter: AuditFilter, against backup: String?, key: AgeKey?) {
        self.store = store
        plan = Self.plan(filter, backup: backup)
        switch plan {
        case .shared:
            work = BackgroundWork {
                try store.engine.reading { connection in
                    var report = VerificationReport()
                    try connection.verifier.checkStorage(into: &report)
                    return report
                }
            }
        case .separate:
            work = BackgroundWork { try backup.map { try store.verify(against: $0, key: key) } ?? store.verify() }
        }
    }

    /// Ends the pass: the replay's problems and the checks after it, read in the pass's transaction.
    mutating func endPass(_ connection: StoreReader) throws {
        guard plan == .shared else { return }
        var report = VerificationReport()
        try replay.finish(into: &report, in: connection.projection, inEntityOrder: true)
        try connection.verifier.checkOthers(into: &report)
        let last = try connection.db.int(sql: "SELECT max(seq) FROM changes") ?? 0
        afterPass = (report, last)
    }

    /// The verdict, once the work beside the pass has ended: call it outside any read of the store.
    func verdict() throws -> VerificationReport {
        let before = try work.wait().get()
        guard plan == .shared else { return before }
        guard let afterPass, !replay.hasRejected, afterPass.lastSequence == before.head.sequence else {
            return try store.verify()
        }
        var report = before
        report.problems += afterPass.report.problems
        report.changeCount = afterPass.report.changeCount
        report.annotationCount = afterPass.report.annotationCount
        report.positionCount = afterPass.report.positionCount
        return report
    }
}
