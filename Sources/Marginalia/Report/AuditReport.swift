/// An audit of a store's history a person can look at: the integrity verdict, who changed what and when, every
/// version of every annotation, and what came from outside. An app renders it as it likes; `writeAuditReport`
/// renders it as one HTML file.
///
///     let report = try store.auditReport(AuditFilter(document: "luceafarul"))
///     print(report.verification.isHealthy, report.devices.map(\.total))
///     try store.forEachAuditDocument(report.filter) { document in print(document.id, document.changeCount) }
///
/// The per-document versions are not held here: a store of 100,000 annotations has too many to hold at once, so
/// `AnnotationStore.forEachAuditDocument` hands them over one document at a time.
public struct AuditReport: Sendable {
    /// One document's place in the report.
    public struct DocumentSummary: Hashable, Sendable {
        /// The document id.
        public var id: String
        /// Its annotations with a change in the report.
        public var annotations: Int
        /// Their changes in the report.
        public var changes: Int
    }

    /// What the report covers.
    public var filter: AuditFilter
    /// When it was made (milliseconds since 1970).
    public var madeAt: Int64
    /// `verify`'s verdict on the whole store, with the chain head.
    public var verification: VerificationReport
    /// The backup the history was checked against, when one was given.
    public var backup: String?
    /// Changes held in quarantine (dated ahead), not in the log.
    public var quarantined: [QuarantinedChange]
    /// The devices with changes in the report, in the order the store first heard of each.
    public var devices: [AuditDevice]
    /// Changes per day or week, by device.
    public var timeline: AuditTimeline
    /// Every import, restore, sync segment and merge the store recorded, oldest first.
    public var receipts: [AuditReceipt]
    /// The documents with annotation changes in the report, by id.
    public var documents: [DocumentSummary]
    /// The changes in the report that are not an annotation's: reading positions and device names.
    public var otherChanges: [Change]
    /// The changes in the report.
    public var changeCount: Int { devices.reduce(0) { $0 + $1.total } }
}
