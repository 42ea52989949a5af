// MARK: - Merging a planned import

extension InteropImporter where Store == StoreWriter {
    /// Merges a planned import in one transaction (the writing half of an import): the changes the log holds
    /// already are counted as duplicates, the others merged, read from the plan as the merge takes them.
    func mergePlanned(_ plan: InteropImportPlan, options: InteropImportOptions, source: ReceiptSource) throws
        -> InteropImportReport
    {
        var report = plan.report
        do {
            try store.write { _ in
                try plan.markKnown { try isLogged(changeID: $0) }
                let fresh = plan.freshChanges()
                report.merge = try store.merging { try $0.merge(fresh, source: source) }
                if let failure = fresh.failure.error { throw failure }
                try plan.forEachAnnotation { annotation in
                    if annotation.fresh == 0 {
                        report.duplicates += 1
                    } else if let first = annotation.firstChangeID, !annotation.firstKnown {
                        if try isQuarantined(changeID: first) {
                            report.held += 1
                            return
                        }
                        report.created += 1
                        if annotation.orphaned { report.orphaned += 1 } else { report.anchored += 1 }
                        if let orphan = annotation.orphan, report.orphans.count < 100 { report.orphans.append(orphan) }
                    } else {
                        report.updated += 1
                    }
                }
                let (total, freshCount) = try plan.changeCounts()
                report.merge.duplicates += total - freshCount
                report.merge.changesRead = total
                if options.dryRun { throw InteropDryRun() }
            }
        } catch is InteropDryRun {
            return report
        }
        return report
    }

    /// Whether the log holds a change of id `changeID`.
    private func isLogged(changeID: String) throws -> Bool {
        try db.int(sql: "SELECT EXISTS (SELECT 1 FROM changes WHERE change_id = ?)", arguments: [changeID]) == 1
    }

    /// Whether the quarantine holds a change of id `changeID`.
    private func isQuarantined(changeID: String) throws -> Bool {
        try db.int(sql: "SELECT EXISTS (SELECT 1 FROM quarantine WHERE change_id = ?)", arguments: [changeID]) == 1
    }
}

/// Thrown to roll back a dry run once it has been counted.
private struct InteropDryRun: Error {}
